/**
 * Typed errors of the batcher (`--batcher`): its configuration (key, L1, rollup config), the
 * L2 blocks it batches and the L1 it posts to. Stable codes; messages say what was wrong and what
 * was expected.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link BatcherError}. */
export const BatcherErrorCode = {
  /** `--batcher` without `--batcher.key` / `BASALT_BATCHER_KEY`. */
  KEY_MISSING: "BATCHER_KEY_MISSING",
  /** `--batcher.key` is not a 32-byte hex private key. */
  KEY_INVALID: "BATCHER_KEY_INVALID",
  /** The key's address is not the rollup's batcher (the system config's, as the L2 head's L1-info deposit names it). */
  KEY_NOT_BATCHER: "BATCHER_KEY_NOT_BATCHER",
  /** `--batcher` without `--l1.rpc`. */
  L1_MISSING: "BATCHER_L1_MISSING",
  /** `--batcher` on a chain with no rollup config (not an OP chain, or a custom one without `--rollup.config`). */
  NO_ROLLUP_CONFIG: "BATCHER_NO_ROLLUP_CONFIG",
  /** The L1 RPC serves another chain than the rollup config's `l1_chain_id`. */
  L1_CHAIN_MISMATCH: "BATCHER_L1_CHAIN_MISMATCH",
  /** An option value the batcher cannot work with (a channel duration not below the channel timeout, say). */
  INVALID_OPTION: "BATCHER_INVALID_OPTION",
  /** An L2 block that cannot follow the previous one in a span batch (timestamp not one block time later, L1 origin going back or skipping). */
  BLOCK_NOT_CONTIGUOUS: "BATCHER_BLOCK_NOT_CONTIGUOUS",
  /** An L2 block without the L1-info deposit as its first transaction (a batch names each block's L1 origin from it). */
  NO_L1_INFO: "BATCHER_NO_L1_INFO",
  /** The L1 RPC has no block where one was expected (the L1 shrank between two requests, or the batcher read before starting). */
  L1_BLOCK_MISSING: "BATCHER_L1_BLOCK_MISSING",
} as const;
/** One of the {@link BatcherErrorCode} values. */
export type BatcherErrorCode = (typeof BatcherErrorCode)[keyof typeof BatcherErrorCode];

/** A {@link BatcherError}'s code with its metadata. */
type BatcherErrorType =
  | { code: typeof BatcherErrorCode.KEY_MISSING }
  | { code: typeof BatcherErrorCode.KEY_INVALID; length: number }
  /** Addresses 0x-hex. */
  | { code: typeof BatcherErrorCode.KEY_NOT_BATCHER; address: string; batcher: string }
  | { code: typeof BatcherErrorCode.L1_MISSING }
  | { code: typeof BatcherErrorCode.NO_ROLLUP_CONFIG; chainId: string }
  | { code: typeof BatcherErrorCode.L1_CHAIN_MISMATCH; expected: string; got: string }
  | { code: typeof BatcherErrorCode.INVALID_OPTION; option: string; value: string }
  /** Block numbers decimal. */
  | { code: typeof BatcherErrorCode.BLOCK_NOT_CONTIGUOUS; number: string; reason: string }
  | { code: typeof BatcherErrorCode.NO_L1_INFO; number: string }
  /** `block`: the number or tag asked for. */
  | { code: typeof BatcherErrorCode.L1_BLOCK_MISSING; block: string };

/** An error of the batcher. */
export class BatcherError extends TypedError<BatcherErrorType> {}
