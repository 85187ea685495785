import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JwtError, JwtSecretError, loadOrCreateJwtSecret, makeJwt, verifyJwt } from "../../src/rpc/jwt.js";

const secret = new Uint8Array(32).fill(7);
const now = 1_700_000_000;

function b64(o: unknown): string {
  return Buffer.from(JSON.stringify(o)).toString("base64url");
}
function signed(header: unknown, claims: unknown, key: Uint8Array = secret): string {
  const input = `${b64(header)}.${b64(claims)}`;
  return `${input}.${createHmac("sha256", key).update(input).digest("base64url")}`;
}
function reason(fn: () => void): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(JwtError);
    expect((err as JwtError).code).toBe("JWT_INVALID");
    return (err as Error).message;
  }
  throw new Error("expected a JwtError");
}

describe("verifyJwt", () => {
  it("accepts a token made by makeJwt, within the drift window", () => {
    verifyJwt(`Bearer ${makeJwt(secret, now)}`, secret, now);
    verifyJwt(`Bearer ${makeJwt(secret, now - 60)}`, secret, now);
    verifyJwt(`Bearer ${makeJwt(secret, now + 60)}`, secret, now);
    verifyJwt(`bearer ${makeJwt(secret)}`, secret);
  });

  it("rejects missing headers and tokens", () => {
    expect(reason(() => verifyJwt(undefined, secret, now))).toBe("missing token");
    expect(reason(() => verifyJwt("", secret, now))).toBe("missing token");
    expect(reason(() => verifyJwt("Basic abc", secret, now))).toBe("missing token");
    expect(reason(() => verifyJwt("Bearer ", secret, now))).toBe("missing token");
  });

  it("rejects malformed tokens", () => {
    expect(reason(() => verifyJwt("Bearer abc", secret, now))).toMatch(/malformed/);
    expect(reason(() => verifyJwt("Bearer a.b.c.d", secret, now))).toMatch(/malformed/);
    expect(reason(() => verifyJwt("Bearer !!.e30.xx", secret, now))).toMatch(/malformed/);
    expect(reason(() => verifyJwt(`Bearer ${b64([1])}.e30.xx`, secret, now))).toMatch(/malformed/);
  });

  it("rejects algorithms other than HS256, including none", () => {
    const none = `${b64({ alg: "none", typ: "JWT" })}.${b64({ iat: now })}.`;
    expect(reason(() => verifyJwt(`Bearer ${none}`, secret, now))).toMatch(/signing method none/);
    const hs512 = signed({ alg: "HS512" }, { iat: now });
    expect(reason(() => verifyJwt(`Bearer ${hs512}`, secret, now))).toMatch(/HS512/);
  });

  it("rejects a wrong signature", () => {
    const other = signed({ alg: "HS256", typ: "JWT" }, { iat: now }, new Uint8Array(32).fill(8));
    expect(reason(() => verifyJwt(`Bearer ${other}`, secret, now))).toBe("token signature is invalid");
    const good = makeJwt(secret, now);
    expect(reason(() => verifyJwt(`Bearer ${good.slice(0, -2)}`, secret, now))).toBe("token signature is invalid");
    // claims swapped under a valid signature
    const [h, , s] = good.split(".");
    expect(reason(() => verifyJwt(`Bearer ${h}.${b64({ iat: now + 1 })}.${s}`, secret, now))).toBe("token signature is invalid");
  });

  it("enforces iat within ±60 s and exp when present", () => {
    expect(reason(() => verifyJwt(`Bearer ${makeJwt(secret, now - 61)}`, secret, now))).toBe("stale token");
    expect(reason(() => verifyJwt(`Bearer ${makeJwt(secret, now + 61)}`, secret, now))).toBe("future token");
    expect(reason(() => verifyJwt(`Bearer ${signed({ alg: "HS256" }, {})}`, secret, now))).toBe("missing issued-at");
    expect(reason(() => verifyJwt(`Bearer ${signed({ alg: "HS256" }, { iat: "now" })}`, secret, now))).toMatch(/iat/);
    expect(reason(() => verifyJwt(`Bearer ${signed({ alg: "HS256" }, { iat: now, exp: now - 1 })}`, secret, now))).toBe(
      "token is expired",
    );
    verifyJwt(`Bearer ${signed({ alg: "HS256" }, { iat: now, exp: now + 10, id: "cl" })}`, secret, now);
  });
});

describe("loadOrCreateJwtSecret", () => {
  const dir = mkdtempSync(join(tmpdir(), "basalt-jwt-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("creates a 0x-hex 32-byte secret with mode 0600, creating directories", () => {
    const path = join(dir, "a", "b", "jwt.hex");
    const s = loadOrCreateJwtSecret(path);
    expect(s).toHaveLength(32);
    const text = readFileSync(path, "utf8");
    expect(text).toMatch(/^0x[0-9a-f]{64}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(Buffer.from(loadOrCreateJwtSecret(path)).equals(Buffer.from(s))).toBe(true);
  });

  it("reads secrets with or without 0x and surrounding whitespace", () => {
    const hex = "ab".repeat(32);
    const p1 = join(dir, "p1");
    writeFileSync(p1, `  0x${hex}\n`);
    expect(Buffer.from(loadOrCreateJwtSecret(p1)).toString("hex")).toBe(hex);
    const p2 = join(dir, "p2");
    writeFileSync(p2, hex.toUpperCase());
    expect(Buffer.from(loadOrCreateJwtSecret(p2)).toString("hex")).toBe(hex);
  });

  it("rejects secrets of the wrong length or not hex", () => {
    const short = join(dir, "short");
    writeFileSync(short, "0x" + "ab".repeat(31));
    expect(() => loadOrCreateJwtSecret(short)).toThrow(JwtSecretError);
    const bad = join(dir, "bad");
    writeFileSync(bad, "zz".repeat(32));
    expect(() => loadOrCreateJwtSecret(bad)).toThrow(/not hex/);
    try {
      loadOrCreateJwtSecret(bad);
    } catch (err) {
      expect((err as JwtSecretError).code).toBe("JWT_SECRET_INVALID");
    }
  });
});
