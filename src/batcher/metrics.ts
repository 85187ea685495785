/**
 * Prometheus metrics of the batcher (`--batcher`), created with src/util/metrics.ts. Counters
 * move as the batcher works; the unbatched-blocks gauge is set every round.
 */
import { counter, gauge } from "../util/metrics.js";

/** Why a channel was closed: the `reason` label of {@link batcherChannelsClosedTotal}. */
export type ChannelCloseReason =
  /** Its compressed size reached the target (frames × frame size). */
  | "full"
  /** It was open `--batcher.max-channel-duration` L1 blocks. */
  | "duration"
  /** {@link BatchSubmitter.flush} (tests, shutdown). */
  | "flush";

/** Why the batcher started over from the safe head: the `reason` label of {@link batcherResetsTotal}. */
export type BatcherResetReason =
  /** Blocks already loaded were reorganized out of the L2 chain. */
  | "l2_reorg"
  /** An L1 reorg removed an included batcher transaction. */
  | "l1_reorg"
  /** The safe head went back (an L1 reorg under the safe chain): what the batcher had posted for the blocks after it may be gone. */
  | "safe_head_reorg"
  /** A batcher transaction failed: reverted, or its nonce was taken by another transaction. */
  | "tx_failed"
  /** A channel's frames were not all included within the channel timeout of its first one. */
  | "channel_timeout"
  /** Everything was confirmed but the safe head did not move for a channel timeout: derivation dropped something. */
  | "safe_head_stalled";

/** L2 blocks put into closed channels. */
export const batcherBlocksBatchedTotal = counter({ name: "basalt_batcher_blocks_batched_total", help: "L2 blocks put into closed channels" });

/** Channels opened. */
export const batcherChannelsOpenedTotal = counter({ name: "basalt_batcher_channels_opened_total", help: "Channels opened" });

/** Channels closed, by {@link ChannelCloseReason}. */
export const batcherChannelsClosedTotal = counter({ name: "basalt_batcher_channels_closed_total", help: "Channels closed by reason (full, duration, flush)", labelNames: ["reason"] });

/** Frames sent (first submission of the transaction carrying them). */
export const batcherFramesSentTotal = counter({ name: "basalt_batcher_frames_sent_total", help: "Frames sent to L1" });

/** Batcher transactions sent (first submission; resubmissions counted apart), by kind (calldata, blobs). */
export const batcherTransactionsSentTotal = counter({ name: "basalt_batcher_transactions_sent_total", help: "Batcher transactions sent to L1 by kind", labelNames: ["kind"] });

/** Batcher transactions confirmed (`--batcher.num-confirmations` L1 blocks deep). */
export const batcherTransactionsConfirmedTotal = counter({ name: "basalt_batcher_transactions_confirmed_total", help: "Batcher transactions confirmed on L1" });

/** Batcher transactions that failed (reverted, or their nonce taken by another transaction). */
export const batcherTransactionsFailedTotal = counter({ name: "basalt_batcher_transactions_failed_total", help: "Batcher transactions that failed" });

/** Resubmissions with bumped fees of a transaction not included in time. */
export const batcherTransactionsResubmittedTotal = counter({ name: "basalt_batcher_transactions_resubmitted_total", help: "Batcher transactions resubmitted with bumped fees" });

/** Batcher data posted (version byte and frames), by kind (calldata, blobs), at first submission. */
export const batcherPostedBytesTotal = counter({ name: "basalt_batcher_posted_bytes_total", help: "Batcher data bytes posted to L1 by kind", labelNames: ["kind"] });

/** Blobs posted, at first submission. */
export const batcherBlobsPostedTotal = counter({ name: "basalt_batcher_blobs_posted_total", help: "Blobs posted to L1" });

/** L1 fees paid by included batcher transactions (gas used × effective gas price + blob gas × blob gas price), in gwei. */
export const batcherL1FeesGweiTotal = counter({ name: "basalt_batcher_l1_fees_gwei_total", help: "L1 fees paid by included batcher transactions in gwei" });

/** Requests to the L1 RPC, by method. */
export const batcherL1RequestsTotal = counter({ name: "basalt_batcher_l1_requests_total", help: "Requests to the L1 RPC by method", labelNames: ["method"] });

/** Restarts from the safe head, by {@link BatcherResetReason}. */
export const batcherResetsTotal = counter({ name: "basalt_batcher_resets_total", help: "Batcher restarts from the safe head by reason", labelNames: ["reason"] });

/** L2 blocks past the last one put in a closed channel (the L2 head minus that block). */
export const batcherUnbatchedBlocks = gauge({ name: "basalt_batcher_unbatched_blocks", help: "L2 blocks not yet in a closed channel" });
