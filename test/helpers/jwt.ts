/**
 * Minimal HS256 JWT support for talking to the authenticated Engine API
 * (execution-apis `authentication.md`: HS256, `iat` claim within ±60 s of now).
 * Self-contained on purpose: tests must not depend on the code they check.
 */
import { createHmac } from "node:crypto";

/** The JWT secret hive gives every client: the ASCII bytes of "secretsecret…" (32 bytes), hex with 0x. */
export const HIVE_JWT_SECRET_HEX = "0x7365637265747365637265747365637265747365637265747365637265747365";

/** Claims of an Engine API token; `iat` is mandatory, the rest optional. */
export interface JwtClaims {
  /** issued-at, seconds since the epoch */
  iat: number;
  /** optional client identifier */
  id?: string;
  /** optional client version */
  clv?: string;
  /** optional expiry, seconds since the epoch */
  exp?: number;
}

function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString("base64url");
}

/**
 * Parses a JWT secret given as hex (with or without 0x, surrounding whitespace allowed,
 * as found in a jwtsecret file). Throws unless it is exactly 32 bytes.
 */
export function parseJwtSecret(hex: string): Buffer {
  const clean = hex.trim().replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{64}$/.test(clean)) throw new Error("JWT secret must be 32 bytes of hex");
  return Buffer.from(clean, "hex");
}

/**
 * Builds an HS256-signed JWT for the Engine API.
 * @param secret 32-byte secret (Buffer/Uint8Array) or its hex form
 * @param claims token claims; `iat` defaults to the current time
 */
export function makeJwt(secret: Uint8Array | string, claims: Partial<JwtClaims> = {}): string {
  const key = typeof secret === "string" ? parseJwtSecret(secret) : Buffer.from(secret);
  const header = base64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body: JwtClaims = { ...claims, iat: claims.iat ?? Math.floor(Date.now() / 1000) };
  const payload = base64url(JSON.stringify(body));
  const signature = createHmac("sha256", key).update(`${header}.${payload}`).digest("base64url");
  return `${header}.${payload}.${signature}`;
}

/**
 * `Authorization` header value (`Bearer <jwt>`) with a fresh token.
 * @param secret 32-byte secret or its hex form
 */
export function engineAuthHeader(secret: Uint8Array | string): string {
  return `Bearer ${makeJwt(secret)}`;
}
