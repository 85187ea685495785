/**
 * Extraction of a contract's runtime code from its creation code, for contracts without immutables
 * whose constructor simply CODECOPYs a fixed byte range of itself and RETURNs it.
 */
import { TypedError } from "../../../util/errors.js";

/** Stable code of {@link BytecodeSliceError}. */
const BytecodeSliceErrorCode = { BYTECODE_SLICE_OUT_OF_RANGE: "OP_BYTECODE_SLICE_OUT_OF_RANGE" } as const;
/** A {@link BytecodeSliceError}'s code with its metadata. */
type BytecodeSliceErrorType = { code: typeof BytecodeSliceErrorCode.BYTECODE_SLICE_OUT_OF_RANGE; offset: number; length: number; available: number };

/** Raised when a requested slice does not lie inside the creation code (a bad offset/length constant). */
export class BytecodeSliceError extends TypedError<BytecodeSliceErrorType> {
  constructor(offset: number, length: number, available: number) {
    super({ code: BytecodeSliceErrorCode.BYTECODE_SLICE_OUT_OF_RANGE, offset, length, available }, `runtime slice [${offset}, ${offset + length}) is outside the ${available}-byte creation code; expected offset + length <= ${available}`);
  }
}

/**
 * The `length` bytes at byte `offset` of 0x-prefixed hex `creationCode`, as 0x-prefixed lowercase hex.
 * This is exactly what a constructor of the form `PUSH len DUP1 PUSH offset PUSH 0 CODECOPY PUSH 0 RETURN`
 * deploys. Throws {@link BytecodeSliceError} when the range exceeds the code.
 */
export function runtimeSlice(creationCode: string, offset: number, length: number): string {
  const hex = creationCode.startsWith("0x") ? creationCode.slice(2) : creationCode;
  const available = hex.length / 2;
  if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > available) {
    throw new BytecodeSliceError(offset, length, available);
  }
  return `0x${hex.slice(offset * 2, (offset + length) * 2).toLowerCase()}`;
}
