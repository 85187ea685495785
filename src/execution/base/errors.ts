/**
 * How a Base native precompile call ends when it does not return normally (base/base
 * `crates/common/precompile-storage/src/error.rs`, `BasePrecompileError`). The precompile logic
 * throws these; {@link ./dispatch.ts} turns them into the call's outcome — never an exception
 * that leaves the EVM:
 *
 * | thrown | outcome | output |
 * |---|---|---|
 * | {@link PrecompileRevertError} | revert, gas used so far | the ABI-encoded custom error |
 * | {@link PrecompilePanicError} | revert, gas used so far | `Panic(uint256)` with the Solidity panic code |
 * | {@link UnknownSelectorError} | revert, gas used so far | the raw 4-byte selector (short calldata: `0x00000000`) |
 * | {@link AbiDecodeError} | revert, gas used so far | selector ‖ UTF-8 of alloy-sol-types' decoder message |
 * | {@link StaticCallViolationError} | revert, gas used so far | empty |
 * | {@link PrecompileOutOfGasError} | halt, all gas | empty |
 * | {@link PrecompileFatalError} | not an outcome: the transaction cannot execute (base/base `PrecompileError::Fatal`, an EVM error) | — |
 */
import { BasaltError } from "../../util/errors.js";

/** Solidity panic codes the precompiles raise (`PanicKind` in alloy-sol-types). */
export const PanicCode = {
  /** Arithmetic under- or overflow. */
  underOverflow: 0x11,
  /** Conversion to an enum out of range. */
  enumConversion: 0x21,
  /** Array index out of bounds. */
  arrayOutOfBounds: 0x32,
} as const;

/** A contract-defined revert: `data` is the ABI-encoded custom error (selector ‖ arguments). */
export class PrecompileRevertError extends BasaltError<{ data: string }> {
  constructor(readonly data: Uint8Array) {
    super("BASE_PRECOMPILE_REVERT", `Base precompile reverted with 0x${Buffer.from(data).toString("hex")}`, { data: `0x${Buffer.from(data).toString("hex")}` });
  }
}

/** A Solidity-style panic (`Panic(uint256)`), e.g. an arithmetic overflow. */
export class PrecompilePanicError extends BasaltError<{ panicCode: number }> {
  constructor(readonly panicCode: number) {
    super("BASE_PRECOMPILE_PANIC", `Base precompile panicked with code 0x${panicCode.toString(16)}`, { panicCode });
  }
}

/** The calldata's selector is not one the precompile serves at this upgrade (or is shorter than 4 bytes). */
export class UnknownSelectorError extends BasaltError<{ selector: string }> {
  constructor(readonly selector: Uint8Array) {
    const hex = `0x${Buffer.from(selector).toString("hex")}`;
    super("BASE_PRECOMPILE_UNKNOWN_SELECTOR", `Base precompile has no function with selector ${hex}`, { selector: hex });
  }
}

/** The selector is known but the arguments do not decode; `reason` is alloy-sol-types' message, which the revert data carries. */
export class AbiDecodeError extends BasaltError<{ selector: string; reason: string }> {
  constructor(
    readonly selector: Uint8Array,
    readonly reason: string,
  ) {
    const hex = `0x${Buffer.from(selector).toString("hex")}`;
    super("BASE_PRECOMPILE_ABI_DECODE", `Base precompile could not decode the arguments of ${hex}: ${reason}`, { selector: hex, reason });
  }
}

/** A state change (SSTORE, TSTORE, LOG) was attempted in a static call. */
export class StaticCallViolationError extends BasaltError {
  constructor() {
    super("BASE_PRECOMPILE_STATIC_CALL", "Base precompile attempted a state change in a static call; expected a CALL");
  }
}

/** The call ran out of gas: it halts and consumes all the gas it was given. */
export class PrecompileOutOfGasError extends BasaltError<{ gasLimit: string; needed: string }> {
  constructor(gasLimit: bigint, needed: bigint) {
    super("BASE_PRECOMPILE_OUT_OF_GAS", `Base precompile needs ${needed} gas, but the call has ${gasLimit}`, { gasLimit: gasLimit.toString(), needed: needed.toString() });
  }
}

/** An internal failure (a slot overflow, a broken invariant, a database error): the transaction cannot execute (base/base `Fatal`). */
export class PrecompileFatalError extends BasaltError<{ reason: string }> {
  constructor(reason: string) {
    super("BASE_PRECOMPILE_FATAL", `Base precompile failed: ${reason}`, { reason });
  }
}
