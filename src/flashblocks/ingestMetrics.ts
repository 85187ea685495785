/**
 * Prometheus metrics of flashblocks ingestion. The worker counts in shared memory
 * (`ingestStats.ts`); these collectors read those slots at scrape time. Latencies are observed
 * on the RPC thread when it first sees a snapshot: arrival → executed, and arrival → visible.
 */
import type { Counter, Gauge } from "prom-client";
import { counter, gauge, histogram, isMetricRegistered } from "../util/metrics.js";
import {
  CANONICAL_OUTCOMES,
  CLEAR_REASONS,
  DISCONNECT_REASONS,
  DROP_REASONS,
  MISMATCH_FIELDS,
  REJECT_REASONS,
  type IngestStats,
} from "./ingestStats.js";

/** Sub-millisecond to a second: a flashblock should be visible within a few ms, a slow one within its 200 ms interval. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1];

/** Seconds from a frame's arrival at the worker to the end of its execution. */
export const flashblockExecuteSeconds = histogram({
  name: "basalt_flashblocks_execute_seconds",
  help: "Flashblock arrival to executed pending state, seconds",
  buckets: LATENCY_BUCKETS,
});
/**
 * Seconds from a frame's arrival to its pending state being published in shared memory: from then
 * on every RPC request reads it (the first one also decodes it; see the decode histogram).
 */
export const flashblockPublishedSeconds = histogram({
  name: "basalt_flashblocks_published_latency_seconds",
  help: "Flashblock arrival to its pending state being readable by RPC requests, seconds",
  buckets: LATENCY_BUCKETS,
});
/** Seconds the RPC thread spends decoding one published pending snapshot (once per snapshot). */
export const flashblockDecodeSeconds = histogram({
  name: "basalt_flashblocks_snapshot_decode_seconds",
  help: "RPC thread decode of one pending snapshot, seconds",
  buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01],
});
/** Seconds from a frame's arrival to the RPC thread's subscription watcher waking up with its pending state (includes the RPC thread's event-loop delay). */
export const flashblockVisibleSeconds = histogram({
  name: "basalt_flashblocks_visible_latency_seconds",
  help: "Flashblock arrival to visibility in pending RPC answers, seconds",
  buckets: LATENCY_BUCKETS,
});

/** The counter the collectors register first: present means they are registered already. */
const RECEIVED_TOTAL = "basalt_flashblocks_received_total";

/** Source of the counter values (the stats of the running worker). */
let source: IngestStats | undefined;

/** Points the collectors at the stats of a (new) worker. */
export function bindIngestStats(stats: IngestStats): void {
  source = stats;
  registerCollectors();
}

let registered = false;
function registerCollectors(): void {
  if (registered || isMetricRegistered(RECEIVED_TOTAL)) return;
  registered = true;
  const scalar = (name: string, help: string, slot: string, kind: "counter" | "gauge"): void => {
    const collect = function (this: Counter | Gauge): void {
      const v = source?.get(slot) ?? 0;
      if (kind === "gauge") (this as Gauge).set(v);
      else {
        (this as Counter).reset();
        (this as Counter).inc(v);
      }
    };
    if (kind === "gauge") gauge({ name, help, collect });
    else counter({ name, help, collect });
  };
  const labelled = (name: string, help: string, prefix: string, values: readonly string[]): void => {
    counter({
      name,
      help,
      labelNames: ["reason"],
      collect(this: Counter<"reason">) {
        this.reset();
        for (const v of values) this.inc({ reason: v }, source?.get(`${prefix}:${v}`) ?? 0);
      },
    });
  };
  scalar(RECEIVED_TOTAL, "Flashblock frames received from the stream", "received", "counter");
  scalar("basalt_flashblocks_applied_total", "Flashblocks executed into pending state", "applied", "counter");
  scalar("basalt_flashblocks_duplicates_total", "Duplicate flashblocks ignored", "duplicate", "counter");
  scalar("basalt_flashblocks_held_total", "Flashblocks held until their parent block is canonical", "held", "counter");
  scalar("basalt_flashblocks_replaced_total", "Pending builds replaced by a new payload id", "replaced", "counter");
  scalar("basalt_flashblocks_transactions_executed_total", "Transactions executed from flashblocks", "transactionsExecuted", "counter");
  scalar(
    "basalt_flashblocks_evm_fallbacks_total",
    "Pending blocks re-executed on the reference EVM because the fast engine's result differed from the published diff",
    "evmFallbacks",
    "counter",
  );
  scalar(
    "basalt_flashblocks_idle_collections_total",
    "Young-generation collections the flashblocks worker ran between frames",
    "idleCollections",
    "counter",
  );
  scalar("basalt_flashblocks_stream_connections", "1 while the flashblocks stream is connected", "connected", "gauge");
  scalar("basalt_flashblocks_pending_number", "Block number of the latest applied flashblock", "pendingBlock", "gauge");
  scalar("basalt_flashblocks_pending_index", "Index of the latest applied flashblock", "pendingIndex", "gauge");
  labelled("basalt_flashblocks_dropped_total", "Flashblocks dropped by the sequencing rules, by reason", "dropped", DROP_REASONS);
  labelled("basalt_flashblocks_cleared_total", "Pending state cleared by a broken sequence, by reason", "cleared", CLEAR_REASONS);
  labelled("basalt_flashblocks_rejected_total", "Flashblocks rejected (malformed, oversize, failed execution), by reason", "rejected", REJECT_REASONS);
  labelled("basalt_flashblocks_diff_mismatch_total", "Published diff fields that differ from re-execution, by field", "mismatch", MISMATCH_FIELDS);
  labelled("basalt_flashblocks_disconnects_total", "Flashblocks stream disconnects, by reason", "disconnect", DISCONNECT_REASONS);
  labelled("basalt_flashblocks_canonical_total", "Canonical blocks reconciled with pending state, by outcome", "canonical", CANONICAL_OUTCOMES);
}
