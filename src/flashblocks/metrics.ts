/**
 * Prometheus metrics of the flashblocks producer (the devnet's block sessions and WebSocket
 * publisher), created with src/util/metrics.ts. The stream consumer's are in ingestMetrics.ts.
 */
import { counter, gauge, histogram } from "../util/metrics.js";

// ---- producer (devnet sequencer + publisher) ----------------------------------------------

/** Flashblocks handed to the publisher (one per frame, whatever the number of subscribers). */
export const flashblocksPublishedTotal = counter({ name: "basalt_flashblocks_published_total", help: "Flashblocks published by the devnet sequencer" });

/** Bytes written to subscribers, by frame format (`brotli` binary frames, `text` JSON frames); counts every subscriber's copy. */
export const flashblocksPublishBytesTotal = counter({
  name: "basalt_flashblocks_publish_bytes_total",
  help: "Flashblock frame bytes sent to subscribers",
  labelNames: ["format"],
});

/** WebSocket subscribers currently connected to the flashblocks publisher. */
export const flashblocksSubscribers = gauge({ name: "basalt_flashblocks_subscribers", help: "Connected flashblocks stream subscribers" });

/** Subscribers disconnected because they could not keep up (send buffer over its bound, or blocked for over 1000 ms). */
export const flashblocksSlowSubscriberDisconnectsTotal = counter({
  name: "basalt_flashblocks_slow_subscriber_disconnects_total",
  help: "Flashblocks subscribers disconnected for being too slow",
});

/**
 * Time to build one flashblock, in seconds: for index 0 opening the block and applying its forced
 * transactions, for later indices adding the pool transactions; both include computing the frame
 * (receipts root, withdrawals root, partial block hash). Base publishes every 200 ms, so the buckets
 * resolve well below that.
 */
export const flashblocksBuildSeconds = histogram({
  name: "basalt_flashblocks_build_seconds",
  help: "Time to build one flashblock (execution and frame) in seconds",
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1],
});
