/**
 * Latency metrics of flashblocks ingestion, observed on the RPC thread when it first sees a
 * snapshot: arrival → executed, → published, → visible, and its decode. The worker's counters are
 * in `ingestStats.ts` (its own thread's metrics, scraped by the worker host).
 */
import { histogram } from "../util/metrics.js";

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
