/**
 * One-shot hash functions for the hashing precompiles: OpenSSL through `node:crypto` where it has
 * the algorithm, @noble/hashes (what @ethereumjs/evm uses) otherwise.
 *
 * `crypto.hash` (Node ≥ 20.12, one call, no Hash object) is the fastest; `createHash` serves on
 * older Node 20 releases, @noble/hashes when OpenSSL lacks the algorithm (RIPEMD-160 lives in
 * OpenSSL 3's legacy provider on some builds). Measured (one-off node script, 2-core dev machine,
 * 32-byte input): SHA-256 2.9 µs `crypto.hash`, 9.6 µs `createHash`, 12 µs @noble/hashes;
 * RIPEMD-160 4.4 / 8.6 / 31 µs.
 */
import crypto from "node:crypto";

/** A one-shot digest of a byte string. */
type Digest = (data: Uint8Array) => Uint8Array;

/** `crypto.hash` as Node ≥ 20.12 has it (absent on 20.10/20.11, which basalt's `engines` allows). */
type OneShotHash = (algorithm: string, data: Uint8Array, outputEncoding: "buffer") => Buffer;

/** Self-check input of {@link nodeDigest}: the three bytes "abc" (the FIPS 180-2 / RIPEMD-160 test message). */
const CHECK_INPUT = new Uint8Array([0x61, 0x62, 0x63]);

/** The bytes of a Buffer as a plain Uint8Array view (no copy). */
function view(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * The `node:crypto` digest `algorithm` as a {@link Digest}, or `fallback` when OpenSSL does not
 * provide it or disagrees with `fallback` on a known input.
 */
export function nodeDigest(algorithm: string, fallback: Digest): Digest {
  const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;
  const digest: Digest =
    typeof oneShot === "function"
      ? (data) => view(oneShot(algorithm, data, "buffer"))
      : (data) => view(crypto.createHash(algorithm).update(data).digest());
  try {
    return Buffer.from(digest(CHECK_INPUT)).equals(fallback(CHECK_INPUT)) ? digest : fallback;
  } catch {
    return fallback;
  }
}
