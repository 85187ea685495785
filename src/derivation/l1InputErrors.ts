/**
 * Typed errors of the L1 inputs to payload attributes (`attributesL1.ts`): stable codes, metadata
 * per code (numbers decimal, hashes 0x hex), and messages that say what was wrong and where.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link L1InputError}. */
export const L1InputErrorCode = {
  /**
   * A `TransactionDeposited` log of the deposit contract in a successful L1 receipt does not
   * decode. Critical: deposits can never be skipped, so derivation cannot go on past this L1 block
   * (op-node derive/attributes.go "failed to derive some deposits").
   */
  BAD_DEPOSIT_LOG: "L1_INPUT_BAD_DEPOSIT_LOG",
  /** An L1 origin with blob fields on an L1 chain whose blob fee schedule basalt does not know. */
  UNKNOWN_L1_BLOB_SCHEDULE: "L1_INPUT_UNKNOWN_L1_BLOB_SCHEDULE",
} as const;
/** One of the {@link L1InputErrorCode} values. */
export type L1InputErrorCode = (typeof L1InputErrorCode)[keyof typeof L1InputErrorCode];

/** An {@link L1InputError}'s code with its metadata. */
type L1InputErrorType =
  /** `reason`: the {@link DepositLogError} code; `logIndex`: the log's index in the L1 block. */
  | { code: typeof L1InputErrorCode.BAD_DEPOSIT_LOG; l1BlockHash: string; logIndex: number; reason: string; critical: true }
  | { code: typeof L1InputErrorCode.UNKNOWN_L1_BLOB_SCHEDULE; l1ChainId: string };

/** An L1 input payload attributes cannot be built from. */
export class L1InputError extends TypedError<L1InputErrorType> {}
