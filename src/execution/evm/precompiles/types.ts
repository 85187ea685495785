/**
 * The contract between the fast core's interpreter and its precompiled contracts: a precompile
 * is a plain synchronous function of the call's input and gas.
 */

/** Result of one precompile run. gasUsed is a JS number (gas fits in 2^53). */
export interface PrecompileResult {
  ok: boolean;
  gasUsed: number;
  output: Uint8Array;
}

/** A synchronous precompile: input bytes and the gas available; never throws. */
export type Precompile = (input: Uint8Array, gasLimit: number) => PrecompileResult;
