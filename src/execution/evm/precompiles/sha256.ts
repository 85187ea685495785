/**
 * SHA256 (0x02, Frontier; Yellow Paper appendix E): the SHA-256 digest of the input, priced per
 * 32-byte word (`sha256Gas` 60 + `sha256WordGas` 12 per word, rounded up).
 */
import type { Common } from "@ethereumjs/common";
import { sha256 } from "@noble/hashes/sha2.js";
import { nodeDigest } from "./digest.js";
import { numberParam } from "./params.js";
import { failure, success } from "./result.js";
import type { Precompile } from "./types.js";

/** Bytes per priced word (Yellow Paper appendix E). */
const WORD_BYTES = 32;

/** OpenSSL's SHA-256 (@noble/hashes when unavailable). */
const digest = nodeDigest("sha256", sha256);

/**
 * SHA256 at the prices of `common`.
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 1.1 µs for 32 bytes, ≈ 1.7 µs for 1 KiB.
 */
export function sha256Precompile(common: Common): Precompile {
  const base = numberParam(common, "sha256Gas");
  const perWord = numberParam(common, "sha256WordGas");
  return (input, gasLimit) => {
    const gas = base + perWord * Math.ceil(input.length / WORD_BYTES);
    if (gasLimit < gas) return failure(gasLimit);
    return success(gas, digest(input));
  };
}
