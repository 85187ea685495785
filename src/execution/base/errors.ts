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
import { TypedError } from "../../util/errors.js";

/** Solidity panic codes the precompiles raise (`PanicKind` in alloy-sol-types). */
export const PanicCode = {
  /** Arithmetic under- or overflow. */
  underOverflow: 0x11,
  /** Conversion to an enum out of range. */
  enumConversion: 0x21,
  /** Array index out of bounds. */
  arrayOutOfBounds: 0x32,
} as const;

/** Stable code of {@link PrecompileRevertError}. */
const PrecompileRevertErrorCode = { PRECOMPILE_REVERT: "BASE_PRECOMPILE_REVERT" } as const;
/** A {@link PrecompileRevertError}'s code with its metadata. */
type PrecompileRevertErrorType = { code: typeof PrecompileRevertErrorCode.PRECOMPILE_REVERT; data: string };

/** A contract-defined revert: `data` is the ABI-encoded custom error (selector ‖ arguments). */
export class PrecompileRevertError extends TypedError<PrecompileRevertErrorType> {
  constructor(readonly data: Uint8Array) {
    super({ code: PrecompileRevertErrorCode.PRECOMPILE_REVERT, data: `0x${Buffer.from(data).toString("hex")}` }, `Base precompile reverted with 0x${Buffer.from(data).toString("hex")}`);
  }
}

/** Stable code of {@link PrecompilePanicError}. */
const PrecompilePanicErrorCode = { PRECOMPILE_PANIC: "BASE_PRECOMPILE_PANIC" } as const;
/** A {@link PrecompilePanicError}'s code with its metadata. */
type PrecompilePanicErrorType = { code: typeof PrecompilePanicErrorCode.PRECOMPILE_PANIC; panicCode: number };

/** A Solidity-style panic (`Panic(uint256)`), e.g. an arithmetic overflow. */
export class PrecompilePanicError extends TypedError<PrecompilePanicErrorType> {
  constructor(readonly panicCode: number) {
    super({ code: PrecompilePanicErrorCode.PRECOMPILE_PANIC, panicCode }, `Base precompile panicked with code 0x${panicCode.toString(16)}`);
  }
}

/** Stable code of {@link UnknownSelectorError}. */
const UnknownSelectorErrorCode = { PRECOMPILE_UNKNOWN_SELECTOR: "BASE_PRECOMPILE_UNKNOWN_SELECTOR" } as const;
/** A {@link UnknownSelectorError}'s code with its metadata. */
type UnknownSelectorErrorType = { code: typeof UnknownSelectorErrorCode.PRECOMPILE_UNKNOWN_SELECTOR; selector: string };

/** The calldata's selector is not one the precompile serves at this upgrade (or is shorter than 4 bytes). */
export class UnknownSelectorError extends TypedError<UnknownSelectorErrorType> {
  constructor(readonly selector: Uint8Array) {
    const hex = `0x${Buffer.from(selector).toString("hex")}`;
    super({ code: UnknownSelectorErrorCode.PRECOMPILE_UNKNOWN_SELECTOR, selector: hex }, `Base precompile has no function with selector ${hex}`);
  }
}

/** Stable code of {@link AbiDecodeError}. */
const AbiDecodeErrorCode = { PRECOMPILE_ABI_DECODE: "BASE_PRECOMPILE_ABI_DECODE" } as const;
/** A {@link AbiDecodeError}'s code with its metadata. */
type AbiDecodeErrorType = { code: typeof AbiDecodeErrorCode.PRECOMPILE_ABI_DECODE; selector: string; reason: string };

/** The selector is known but the arguments do not decode; `reason` is alloy-sol-types' message, which the revert data carries. */
export class AbiDecodeError extends TypedError<AbiDecodeErrorType> {
  constructor(
    readonly selector: Uint8Array,
    readonly reason: string,
  ) {
    const hex = `0x${Buffer.from(selector).toString("hex")}`;
    super({ code: AbiDecodeErrorCode.PRECOMPILE_ABI_DECODE, selector: hex, reason }, `Base precompile could not decode the arguments of ${hex}: ${reason}`);
  }
}

/** Stable code of {@link StaticCallViolationError}. */
const StaticCallViolationErrorCode = { PRECOMPILE_STATIC_CALL: "BASE_PRECOMPILE_STATIC_CALL" } as const;
/** A {@link StaticCallViolationError}'s code with its metadata. */
type StaticCallViolationErrorType = { code: typeof StaticCallViolationErrorCode.PRECOMPILE_STATIC_CALL };

/** A state change (SSTORE, TSTORE, LOG) was attempted in a static call. */
export class StaticCallViolationError extends TypedError<StaticCallViolationErrorType> {
  constructor() {
    super({ code: StaticCallViolationErrorCode.PRECOMPILE_STATIC_CALL }, "Base precompile attempted a state change in a static call; expected a CALL");
  }
}

/** Stable code of {@link PrecompileOutOfGasError}. */
const PrecompileOutOfGasErrorCode = { PRECOMPILE_OUT_OF_GAS: "BASE_PRECOMPILE_OUT_OF_GAS" } as const;
/** A {@link PrecompileOutOfGasError}'s code with its metadata. */
type PrecompileOutOfGasErrorType = { code: typeof PrecompileOutOfGasErrorCode.PRECOMPILE_OUT_OF_GAS; gasLimit: string; needed: string };

/** The call ran out of gas: it halts and consumes all the gas it was given. */
export class PrecompileOutOfGasError extends TypedError<PrecompileOutOfGasErrorType> {
  constructor(gasLimit: bigint, needed: bigint) {
    super({ code: PrecompileOutOfGasErrorCode.PRECOMPILE_OUT_OF_GAS, gasLimit: gasLimit.toString(), needed: needed.toString() }, `Base precompile needs ${needed} gas, but the call has ${gasLimit}`);
  }
}

/** Stable code of {@link PrecompileFatalError}. */
const PrecompileFatalErrorCode = { PRECOMPILE_FATAL: "BASE_PRECOMPILE_FATAL" } as const;
/** A {@link PrecompileFatalError}'s code with its metadata. */
type PrecompileFatalErrorType = { code: typeof PrecompileFatalErrorCode.PRECOMPILE_FATAL; reason: string };

/** An internal failure (a slot overflow, a broken invariant, a database error): the transaction cannot execute (base/base `Fatal`). */
export class PrecompileFatalError extends TypedError<PrecompileFatalErrorType> {
  constructor(reason: string) {
    super({ code: PrecompileFatalErrorCode.PRECOMPILE_FATAL, reason }, `Base precompile failed: ${reason}`);
  }
}
