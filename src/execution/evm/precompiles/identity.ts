/**
 * IDENTITY (0x04, Frontier; Yellow Paper appendix E): returns its input, priced per 32-byte word
 * (`identityGas` 15 + `identityWordGas` 3 per word, rounded up).
 */
import type { Common } from "@ethereumjs/common";
import { numberParam } from "./params.js";
import { EMPTY_OUTPUT, failure, success } from "./result.js";
import type { Precompile } from "./types.js";

/** Bytes per priced word (Yellow Paper appendix E). */
const WORD_BYTES = 32;

/**
 * IDENTITY at the prices of `common`. The output is one copy of the input (the input is
 * typically a view of the caller's memory, which the caller may overwrite while the return
 * data lives on).
 * Cost (CPU time per call, bench/micro/precompiles.ts --cpu, shared 2-core dev machine):
 * ≈ 0.08 µs for 32 bytes, ≈ 0.8 µs for 1 KiB.
 */
export function identityPrecompile(common: Common): Precompile {
  const base = numberParam(common, "identityGas");
  const perWord = numberParam(common, "identityWordGas");
  return (input, gasLimit) => {
    const gas = base + perWord * Math.ceil(input.length / WORD_BYTES);
    if (gasLimit < gas) return failure(gasLimit);
    return success(gas, input.length === 0 ? EMPTY_OUTPUT : input.slice());
  };
}
