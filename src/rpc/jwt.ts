/**
 * Engine API authentication (execution-apis `authentication.md`): an HS256 JWT in
 * `Authorization: Bearer <token>`, signed with a 32-byte shared secret, whose `iat` claim is
 * within ±JWT_IAT_DRIFT_S seconds of the local clock. Error messages follow geth's.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { JWT_IAT_DRIFT_S } from "./constants.js";
import { TypedError } from "../util/errors.js";

/** Length of the shared secret in bytes (the spec fixes 256 bits). */
const JWT_SECRET_BYTES = 32;

/** Stable code of {@link JwtError}. */
const JwtErrorCode = { INVALID: "JWT_INVALID" } as const;
/** A {@link JwtError}'s code with its metadata. */
type JwtErrorType = { code: typeof JwtErrorCode.INVALID; reason: string };

/** A request's JWT was missing, malformed, wrongly signed or outside the allowed time window. */
export class JwtError extends TypedError<JwtErrorType> {
  constructor(reason: string) {
    super({ code: JwtErrorCode.INVALID, reason }, reason);
  }
}

/** Stable code of {@link JwtSecretError}. */
const JwtSecretErrorCode = { SECRET_INVALID: "JWT_SECRET_INVALID" } as const;
/** A {@link JwtSecretError}'s code with its metadata. */
type JwtSecretErrorType = { code: typeof JwtSecretErrorCode.SECRET_INVALID; path: string };

/** The JWT secret file could not be read, parsed or created. */
export class JwtSecretError extends TypedError<JwtSecretErrorType> {
  constructor(path: string, message: string, cause?: unknown) {
    super({ code: JwtSecretErrorCode.SECRET_INVALID, path }, message, cause === undefined ? undefined : { cause });
  }
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function b64url(data: string | Uint8Array): string {
  return Buffer.from(data).toString("base64url");
}

function sign(secret: Uint8Array, signingInput: string): Buffer {
  return createHmac("sha256", secret).update(signingInput, "ascii").digest();
}

function decodeJsonPart(part: string, what: string): Record<string, unknown> {
  if (!BASE64URL.test(part)) throw new JwtError(`token is malformed: ${what} is not base64url`);
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw new JwtError(`token is malformed: ${what} is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new JwtError(`token is malformed: ${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

/**
 * Verifies an `Authorization` header value. Throws {@link JwtError} naming the problem:
 * missing token, malformed token, algorithm other than HS256, bad signature, expired
 * (`exp`, when present), missing `iat`, or `iat` more than JWT_IAT_DRIFT_S seconds from now.
 */
export function verifyJwt(
  authorizationHeader: string | undefined,
  secret: Uint8Array,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): void {
  const header = authorizationHeader?.trim() ?? "";
  const token = /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, "") : "";
  if (token === "") throw new JwtError("missing token");

  const parts = token.split(".");
  if (parts.length !== 3) throw new JwtError("token is malformed: expected three parts");
  const [h, p, s] = parts as [string, string, string];

  const head = decodeJsonPart(h, "header");
  if (head.alg !== "HS256") throw new JwtError(`token signing method ${String(head.alg)} is invalid, want HS256`);

  if (!BASE64URL.test(s)) throw new JwtError("token is malformed: signature is not base64url");
  const given = Buffer.from(s, "base64url");
  const expected = sign(secret, `${h}.${p}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new JwtError("token signature is invalid");
  }

  const claims = decodeJsonPart(p, "claims");
  if (claims.exp !== undefined) {
    if (typeof claims.exp !== "number" || !Number.isFinite(claims.exp)) throw new JwtError("token has an invalid exp claim");
    if (nowSeconds >= claims.exp) throw new JwtError("token is expired");
  }
  const iat = claims.iat;
  if (iat === undefined) throw new JwtError("missing issued-at");
  if (typeof iat !== "number" || !Number.isFinite(iat)) throw new JwtError("token has an invalid iat claim");
  if (nowSeconds - iat > JWT_IAT_DRIFT_S) throw new JwtError("stale token");
  if (iat - nowSeconds > JWT_IAT_DRIFT_S) throw new JwtError("future token");
}

/** Makes an HS256 token `{"alg":"HS256","typ":"JWT"}.{"iat":iat}` (defaults to now), as a consensus client does. */
export function makeJwt(secret: Uint8Array, iat: number = Math.floor(Date.now() / 1000)): string {
  const signingInput = `${b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${b64url(JSON.stringify({ iat }))}`;
  return `${signingInput}.${b64url(sign(secret, signingInput))}`;
}

function parseSecret(path: string, text: string): Uint8Array {
  const hex = text.trim().replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) {
    throw new JwtSecretError(path, `JWT secret file ${path} is not hex`);
  }
  if (hex.length !== JWT_SECRET_BYTES * 2) {
    throw new JwtSecretError(path, `JWT secret in ${path} is ${hex.length / 2} bytes, want ${JWT_SECRET_BYTES}`);
  }
  return new Uint8Array(Buffer.from(hex, "hex"));
}

/**
 * Reads the hex JWT secret at `path` (optional 0x prefix, surrounding whitespace ignored,
 * exactly 32 bytes). When the file does not exist, generates a random secret, writes it as
 * 0x-hex with mode 0600 (creating parent directories) and returns it.
 */
export function loadOrCreateJwtSecret(path: string): Uint8Array {
  if (!existsSync(path)) {
    const secret = new Uint8Array(randomBytes(JWT_SECRET_BYTES));
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // "wx": never overwrite a secret another process wrote in the meantime.
      writeFileSync(path, `0x${Buffer.from(secret).toString("hex")}`, { mode: 0o600, flag: "wx" });
      return secret;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new JwtSecretError(path, `cannot write JWT secret file ${path}: ${(err as Error).message}`, err);
      }
    }
  }
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new JwtSecretError(path, `cannot read JWT secret file ${path}: ${(err as Error).message}`, err);
  }
  return parseSecret(path, text);
}
