/**
 * The three shapes of a precompile result, shared by every precompile of the fast core
 * (the semantics of @ethereumjs/evm's `OOGResult` / `EVMErrorResult` and of geth's
 * `RunPrecompiledContract`).
 */
import type { PrecompileResult } from "./types.js";

/** The empty output (length 0, so sharing it cannot leak a mutation). */
export const EMPTY_OUTPUT: Uint8Array = new Uint8Array(0);

/**
 * A failed run: out of gas, or invalid input. The call consumes all the gas given to it and
 * returns nothing (the precompile cannot revert with data).
 */
export function failure(gasLimit: number): PrecompileResult {
  return { ok: false, gasUsed: gasLimit, output: EMPTY_OUTPUT };
}

/** A successful run charging `gasUsed` (the caller has checked it is within the limit). */
export function success(gasUsed: number, output: Uint8Array): PrecompileResult {
  return { ok: true, gasUsed, output };
}
