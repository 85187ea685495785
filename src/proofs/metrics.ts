/**
 * Prometheus metrics of the historical proofs extension.
 *
 * The window's ends and the writer's state are gauges the main thread reads from the shared slots
 * (`proofs/stats.ts`) at scrape time ({@link bindProofsStats}). The worker's counters and progress
 * gauges are prom-client metrics of the proofs worker's own thread ({@link proofsWorkerMetrics}),
 * scraped by the worker host; the main thread registers them at zero so the families are listed
 * from the start (the scrape sums both; only the worker moves them).
 */
import type { Counter, Gauge } from "prom-client";
import { counter, gauge } from "../util/metrics.js";

/** The proofs worker's shared slots, as the main thread reads them (`ProofsStats` in stats.ts). */
interface SharedSlots {
  get(name: "earliest" | "latest" | "writerStopped" | "backfillStoppedAt"): number;
}

/** Stats the proofs worker keeps as its own metrics, by their name in `ProofsStats` (stats.ts). */
export type ProofsWorkerMetric =
  | "baselineNodes"
  | "forwardBlocks"
  | "backfillBlocks"
  | "backfillMicrosPerBlock"
  | "backfillRemaining"
  | "unwoundBlocks"
  | "prunedBlocks"
  | "backfillHistoryStops"
  | "syncNodeReads"
  | "syncNodeMisses";

/** A worker metric as `ProofsStats` moves it: `set` on a gauge, `inc` on a counter. */
interface StatMetric {
  set(v: number): void;
  inc(v: number): void;
}

function counterStat(name: string, help: string): StatMetric {
  const c: Counter = counter({ name, help });
  return {
    set: (v) => {
      c.reset();
      c.inc(v);
    },
    inc: (v) => c.inc(v),
  };
}

function gaugeStat(name: string, help: string, scale = 1): StatMetric {
  const g: Gauge = gauge({ name, help });
  return { set: (v) => g.set(v * scale), inc: (v) => g.inc(v * scale) };
}

/** Registers the worker's metrics in this thread's registry (each created once per registry) and returns them by stat name. */
export function proofsWorkerMetrics(): Record<ProofsWorkerMetric, StatMetric> {
  return {
    baselineNodes: gaugeStat("basalt_proofs_baseline_nodes", "Trie nodes written by the proofs store's baseline (init)"),
    forwardBlocks: counterStat("basalt_proofs_forward_blocks_total", "Canonical blocks written forward into the proofs store"),
    backfillBlocks: counterStat("basalt_proofs_backfill_blocks_total", "Blocks the proofs window was extended backwards by (init backfill)"),
    backfillMicrosPerBlock: gaugeStat("basalt_proofs_backfill_block_seconds", "Backfill time per block in the last turn, seconds", 1e-6),
    backfillRemaining: gaugeStat(
      "basalt_proofs_backfill_remaining_blocks",
      "Blocks the proofs window still extends backwards by before it is as long as configured (init; ETA = this × backfill seconds per block)",
    ),
    unwoundBlocks: counterStat("basalt_proofs_unwound_blocks_total", "Blocks unwound from the proofs store after reorgs"),
    prunedBlocks: counterStat("basalt_proofs_pruned_blocks_total", "Blocks pruned from the proofs window's far end"),
    backfillHistoryStops: counterStat(
      "basalt_proofs_backfill_history_stops_total",
      "Times the proofs window's backward extension stopped at the main store's state history floor",
    ),
    syncNodeReads: counterStat("basalt_proofs_sync_node_reads_total", "Trie nodes read from the proofs store by forward and backfill steps"),
    syncNodeMisses: counterStat(
      "basalt_proofs_sync_node_misses_total",
      "Trie nodes a forward or backfill step needed that its prefetch had not read (each runs that trie's update again)",
    ),
  };
}

let source: SharedSlots | undefined;

/**
 * Main thread: points the shared-slot gauges at the running service's slots (registers them once)
 * and registers the worker's metrics at zero.
 */
export function bindProofsStats(stats: SharedSlots): void {
  source = stats;
  proofsWorkerMetrics();
  const g = (name: string, help: string, slot: Parameters<SharedSlots["get"]>[0]): void => {
    gauge({
      name,
      help,
      collect(this: Gauge) {
        this.set(source?.get(slot) ?? 0);
      },
    });
  };
  g("basalt_proofs_window_earliest_number", "Oldest block the proofs store answers for (-1: none yet)", "earliest");
  g("basalt_proofs_window_latest_number", "Newest block the proofs store answers for (-1: none yet)", "latest");
  g("basalt_proofs_writer_stopped_number", "1 when the proofs writer stopped on an error (reads continue)", "writerStopped");
  g(
    "basalt_proofs_backfill_stopped_number",
    "Block the proofs window's backward extension stopped at because the main store keeps no older state history (-1: it did not stop)",
    "backfillStoppedAt",
  );
}
