/**
 * RIPEMD160 (0x03, Frontier; Yellow Paper appendix E): the RIPEMD-160 digest of the input,
 * left-padded to a 32-byte word, priced per 32-byte word (`ripemd160Gas` 600 +
 * `ripemd160WordGas` 120 per word, rounded up).
 */
import type { Common } from "@ethereumjs/common";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { nodeDigest } from "./digest.js";
import { numberParam } from "./params.js";
import { failure, success } from "./result.js";
import type { Precompile } from "./types.js";

/** Bytes per priced word (Yellow Paper appendix E). */
const WORD_BYTES = 32;
/** Where the 20-byte digest starts in the 32-byte output word (12 zero bytes before it). */
const DIGEST_OFFSET = 12;

/** OpenSSL's RIPEMD-160 (@noble/hashes when OpenSSL lacks it). */
const digest = nodeDigest("ripemd160", ripemd160);

/**
 * RIPEMD160 at the prices of `common`.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 1.5 µs for 32 bytes.
 */
export function ripemd160Precompile(common: Common): Precompile {
  const base = numberParam(common, "ripemd160Gas");
  const perWord = numberParam(common, "ripemd160WordGas");
  return (input, gasLimit) => {
    const gas = base + perWord * Math.ceil(input.length / WORD_BYTES);
    if (gasLimit < gas) return failure(gasLimit);
    const out = new Uint8Array(32);
    out.set(digest(input), DIGEST_OFFSET);
    return success(gas, out);
  };
}
