/**
 * Prometheus metrics of flashblocks, on prom-client's default registry: the devnet producer
 * (block sessions and the WebSocket publisher) and, appended below it, the stream consumer.
 *
 * Every metric is looked up in the registry before being created, so importing this module
 * twice (tests, worker reloads) never throws "metric already registered".
 */
import { Counter, Gauge, Histogram, register } from "prom-client";

function counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
  return (register.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter<L>({ name, help, labelNames });
}

function gauge<L extends string>(name: string, help: string, labelNames: L[]): Gauge<L> {
  return (register.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge<L>({ name, help, labelNames });
}

function histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): Histogram<L> {
  return (register.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram<L>({ name, help, labelNames, buckets });
}

// ---- producer (devnet sequencer + publisher) ----------------------------------------------

/** Flashblocks handed to the publisher (one per frame, whatever the number of subscribers). */
export const flashblocksPublishedTotal = counter("basalt_flashblocks_published_total", "Flashblocks published by the devnet sequencer", []);

/** Bytes written to subscribers, by frame format (`brotli` binary frames, `text` JSON frames); counts every subscriber's copy. */
export const flashblocksPublishBytesTotal = counter("basalt_flashblocks_publish_bytes_total", "Flashblock frame bytes sent to subscribers", [
  "format",
]);

/** WebSocket subscribers currently connected to the flashblocks publisher. */
export const flashblocksSubscribers = gauge("basalt_flashblocks_subscribers", "Connected flashblocks stream subscribers", []);

/** Subscribers disconnected because they could not keep up (send buffer over its bound, or blocked for over 1000 ms). */
export const flashblocksSlowSubscriberDisconnectsTotal = counter(
  "basalt_flashblocks_slow_subscriber_disconnects_total",
  "Flashblocks subscribers disconnected for being too slow",
  [],
);

/**
 * Time to build one flashblock, in seconds: for index 0 opening the block and applying its forced
 * transactions, for later indices adding the pool transactions; both include computing the frame
 * (receipts root, withdrawals root, partial block hash). Base publishes every 200 ms, so the buckets
 * resolve well below that.
 */
export const flashblocksBuildSeconds = histogram(
  "basalt_flashblocks_build_seconds",
  "Time to build one flashblock (execution and frame) in seconds",
  [],
  [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1],
);
