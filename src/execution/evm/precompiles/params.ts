/**
 * Reading the precompile prices of a Common once, when a precompile set is built, instead of on
 * every call as @ethereumjs/evm does (`opts.common.param(...)`).
 */
import type { Common } from "@ethereumjs/common";

/**
 * A parameter of `common` at its current hardfork as a number: every precompile price and the
 * KZG constants are far below 2^53.
 */
export function numberParam(common: Common, name: string): number {
  return Number(common.param(name));
}
