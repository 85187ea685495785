/**
 * Prometheus metrics of the log index (storage/logIndex.ts): what indexing a block costs, and
 * the index's size read at scrape time from the bound store.
 */
import { counter, gauge, histogram } from "../util/metrics.js";

/** Seconds spent indexing one canonical block's logs inside its commit. */
export const logIndexWriteSeconds = histogram({
  name: "basalt_storage_log_index_write_seconds",
  help: "Time to add one canonical block's logs to the log index, inside the block's commit",
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05],
});

/** Bytes (keys + values) the log index wrote for committed blocks. */
export const logIndexWriteBytesTotal = counter({
  name: "basalt_storage_log_index_write_bytes_total",
  help: "Bytes of keys and values the log index wrote for committed canonical blocks (shards rewritten included)",
});

let source: (() => { entries: number; bytes: number }) | undefined;

/** Points the size gauge at the running node's store (one per process); `undefined` unbinds. */
export function bindLogIndexMetrics(stats: (() => { entries: number; bytes: number }) | undefined): void {
  source = stats;
  registerLogIndexGauges();
}

/** Registers the size gauge (once per process; it reports nothing until a store is bound). */
export function registerLogIndexGauges(): void {
  gauge({
    name: "basalt_storage_log_index_bytes",
    help: "Bytes of the log index sub-database (its LMDB pages)",
    collect() {
      if (source !== undefined) this.set(source().bytes);
    },
  });
}
