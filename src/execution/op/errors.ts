import { TypedError } from "../../util/errors.js";

/** Stable codes of OP block execution errors (a transaction that cannot be included). */
export const OpExecutionErrorCode = {
  /** The first transaction is not the L1-attributes deposit. */
  MISSING_L1_INFO: "OP_MISSING_L1_INFO",
  /** A deposit whose source hash does not match what it claims to come from. */
  BAD_SOURCE_HASH: "OP_BAD_SOURCE_HASH",
  /** A deposit after a user transaction. */
  DEPOSIT_ORDER: "OP_DEPOSIT_ORDER",
  /** A system deposit after Regolith. */
  SYSTEM_TX: "OP_SYSTEM_TX",
  /** A blob (type 3) transaction. */
  BLOB_TX: "OP_BLOB_TX",
  /** The transaction's gas limit does not fit in the block. */
  BLOCK_GAS: "OP_BLOCK_GAS",
  /** Jovian: the block's DA footprint would exceed the gas limit. */
  DA_FOOTPRINT: "OP_DA_FOOTPRINT",
  /** The sender cannot pay the L1 data fee and operator fee. */
  INSUFFICIENT_FUNDS: "OP_INSUFFICIENT_FUNDS",
  /** Any other reason the EVM refused the transaction (nonce, funds, intrinsic gas, …). */
  INVALID_TX: "OP_INVALID_TX",
} as const;
export type OpExecutionErrorCode = (typeof OpExecutionErrorCode)[keyof typeof OpExecutionErrorCode];

/** A {@link OpExecutionError}'s code with its metadata. */
type OpExecutionErrorType = { code: OpExecutionErrorCode; number: string; txIndex?: number };

/** A transaction that cannot be included in an OP block, naming the block and its index. */
export class OpExecutionError extends TypedError<OpExecutionErrorType> {
  constructor(code: OpExecutionErrorCode, message: string, meta: { number: bigint; txIndex?: number }) {
    super({ code, number: meta.number.toString(), txIndex: meta.txIndex }, message);
  }
}
