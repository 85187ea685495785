/**
 * Prometheus metrics of the sequencer (block production on the devnet's simulated L1 or on a real
 * L1), created with src/util/metrics.ts and registered for the endpoint by ops/metrics/families.ts.
 */
import { counter, gauge } from "../util/metrics.js";

/**
 * Failed block production or seal attempts (e.g. the store cannot be written on a full disk),
 * by `stage` ("produce" | "seal"). Each is retried with backoff; the log line is written once
 * per distinct reason, so this counter is what an alert watches.
 */
export const sequencerProductionFailuresTotal = counter<"stage">({
  name: "basalt_sequencer_production_failures_total",
  help: "Failed devnet block production (stage=produce) or seal (stage=seal) attempts, each retried",
  labelNames: ["stage"],
});

/** The L1 block the sequencer's head names as its origin (simulated on the plain devnet, real with `--l1.rpc`). */
export const sequencerL1OriginNumber = gauge({
  name: "basalt_sequencer_l1_origin_number",
  help: "L1 block number of the origin of the sequencer's head block",
});

/** How far the head's origin is behind the L1 head last read (real L1 only): confirmations plus what the L2 timestamps have not reached yet. */
export const sequencerL1OriginLagBlocks = gauge({
  name: "basalt_sequencer_l1_origin_lag_blocks",
  help: "L1 blocks between the L1 head last read and the origin of the sequencer's head block (real L1 only)",
});

/** User deposits (L1 → L2) the sequencer put in its blocks. */
export const sequencerDepositsIncludedTotal = counter({
  name: "basalt_sequencer_deposits_included_total",
  help: "User deposit transactions included in sequenced blocks",
});

/** Blocks sealed without mempool transactions because they were past the sequencer drift of their L1 origin. */
export const sequencerPastDriftBlocksTotal = counter({
  name: "basalt_sequencer_past_drift_blocks_total",
  help: "Blocks built without mempool transactions because the L2 time was past the L1 origin's time + max sequencer drift",
});

/** Requests made to the L1 RPC by the sequencer's origin source, by JSON-RPC method. */
export const sequencerL1RequestsTotal = counter<"method">({
  name: "basalt_sequencer_l1_requests_total",
  help: "Requests the sequencer made to the L1 RPC, by method",
  labelNames: ["method"],
});

/** Times the sequencer found the L1 reorganized under its head's origin (it then waits for the L2 chain to be put back on the canonical L1). */
export const sequencerL1ReorgsTotal = counter({
  name: "basalt_sequencer_l1_reorgs_total",
  help: "Times the L1 was found reorganized under the origin of the sequencer's head (no block is built on it)",
});
