/**
 * Typed errors of the derivation pipeline (the stages that put the codecs and L1 together): stable
 * codes, metadata per code, messages that say what was wrong and what was expected.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link DerivationError}. */
export const DerivationErrorCode = {
  /** An L2 block other than genesis without an L1-info deposit first: not a block of an OP chain. */
  NO_L1_INFO: "DERIVATION_NO_L1_INFO",
  /** The L1 does not have a block derivation must start from (the rollup's L1 anchor, or a safe block's origin). */
  L1_BLOCK_MISSING: "DERIVATION_L1_BLOCK_MISSING",
  /** The L1 serves another chain than the rollup's L1. */
  WRONG_L1_CHAIN: "DERIVATION_WRONG_L1_CHAIN",
  /** The rollup's L1 anchor is not on the L1 (another L1, or a reorganized anchor). */
  GENESIS_L1_MISMATCH: "DERIVATION_GENESIS_L1_MISMATCH",
  /** Derivation would start at an L1 block before Holocene: basalt derives with Holocene's rules only. */
  PRE_HOLOCENE: "DERIVATION_PRE_HOLOCENE",
} as const;
/** One of the {@link DerivationErrorCode} values. */
export type DerivationErrorCode = (typeof DerivationErrorCode)[keyof typeof DerivationErrorCode];

/** A {@link DerivationError}'s code with its metadata. */
type DerivationErrorType =
  | { code: typeof DerivationErrorCode.NO_L1_INFO; number: string }
  | { code: typeof DerivationErrorCode.L1_BLOCK_MISSING; l1Number: string }
  | { code: typeof DerivationErrorCode.WRONG_L1_CHAIN; expected: string; got: string }
  | { code: typeof DerivationErrorCode.GENESIS_L1_MISMATCH; l1Number: string; expected: string; got: string }
  | { code: typeof DerivationErrorCode.PRE_HOLOCENE; l1Number: string; l1Timestamp: string; holoceneTime: string };

/** Derivation cannot go on from here (see the codes). */
export class DerivationError extends TypedError<DerivationErrorType> {}
