/**
 * Prometheus metrics of follow mode (`--follow-rpc`) and sequencer forwarding
 * (`--sequencer-http`), created with src/util/metrics.ts.
 */
import { counter, gauge, histogram } from "../util/metrics.js";

/** Why a follow round failed: the `reason` label of {@link followErrorsTotal} (bounded set). */
export type FollowErrorReason =
  /** Connection refused/reset, socket closed, HTTP error status. */
  | "network"
  /** A request to the source timed out. */
  | "timeout"
  /** The source answered with something that is not a JSON-RPC response. */
  | "invalid_response"
  /** The source answered with a JSON-RPC error. */
  | "upstream"
  /** A block JSON that does not rebuild or hash to its claimed hash. */
  | "invalid_block"
  /** A block that failed local execution or header validation. */
  | "execution"
  /** The source's answers do not fit together (missing block, hash changed under us). */
  | "inconsistent"
  /** The next block is at or after an upgrade basalt does not implement: following stops there. */
  | "unknown_upgrade"
  /** Anything else (a bug). */
  | "internal";

/** Number of the local head while following. */
export const followHeadBlock = gauge({ name: "basalt_sync_follow_head_number", help: "Local head block number in follow mode" });

/** Number of the source's head, as last polled or announced. */
export const followSourceHeadBlock = gauge({ name: "basalt_sync_follow_source_head_number", help: "Head block number of the followed RPC" });

/** Blocks fetched, executed and made canonical. */
export const followBlocksImportedTotal = counter({ name: "basalt_sync_follow_blocks_imported_total", help: "Blocks imported from the followed RPC" });

/** Reorgs of the local head to the source's branch. */
export const followReorgsTotal = counter({ name: "basalt_sync_follow_reorgs_total", help: "Reorgs applied to follow the source's chain" });

/** Failed follow rounds, by {@link FollowErrorReason}. */
export const followErrorsTotal = counter({ name: "basalt_sync_follow_errors_total", help: "Follow-mode errors by reason", labelNames: ["reason"] });

/** Time to execute, verify and commit one followed block, in seconds. */
export const followImportSeconds = histogram({
  name: "basalt_sync_follow_import_seconds",
  help: "Execution and commit time of one followed block in seconds",
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});

/** Times follow mode started waiting for the proofs store (`--historical-proofs`: the gate of `--proofs.max-blocks-ahead`). */
export const followGatedTotal = counter({ name: "basalt_sync_follow_gated_total", help: "Times follow mode was held back to wait for the historical proofs store" });

/** Source blocks the proofs gate holds back now: the source's head minus the highest block allowed (0 when not held). */
export const followGateHeldBlocks = gauge({ name: "basalt_sync_follow_gate_held_blocks", help: "Source blocks follow mode holds back until the historical proofs store advances (0: not held)" });

/** Raw transactions forwarded to the sequencer (`--sequencer-http`), by result: `ok`, `rejected` (its JSON-RPC error), `failed` (transport). */
export const sequencerForwardTotal = counter({ name: "basalt_sync_sequencer_forward_total", help: "Transactions forwarded to the sequencer by result", labelNames: ["result"] });

/** Round-trip time of one forwarded transaction, in seconds. */
export const sequencerForwardSeconds = histogram({
  name: "basalt_sync_sequencer_forward_seconds",
  help: "Sequencer round-trip time of eth_sendRawTransaction forwarding in seconds",
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});
