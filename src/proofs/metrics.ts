/**
 * Prometheus metrics of the historical proofs extension, collected from the proofs worker's
 * shared counters (`proofs/stats.ts`) when scraped.
 */
import type { Counter, Gauge } from "prom-client";
import { counter, gauge, isMetricRegistered } from "../util/metrics.js";
import type { ProofsStat, ProofsStats } from "./stats.js";

const FIRST = "basalt_proofs_window_earliest_number";
let source: ProofsStats | undefined;

/** Points the collectors at the running worker's counters (registers them once). */
export function bindProofsStats(stats: ProofsStats): void {
  source = stats;
  if (isMetricRegistered(FIRST)) return;
  const g = (name: string, help: string, slot: ProofsStat, scale = 1): void => {
    gauge({
      name,
      help,
      collect(this: Gauge) {
        this.set((source?.get(slot) ?? 0) * scale);
      },
    });
  };
  const c = (name: string, help: string, slot: ProofsStat): void => {
    counter({
      name,
      help,
      collect(this: Counter) {
        this.reset();
        this.inc(source?.get(slot) ?? 0);
      },
    });
  };
  g(FIRST, "Oldest block the proofs store answers for (-1: none yet)", "earliest");
  g("basalt_proofs_window_latest_number", "Newest block the proofs store answers for (-1: none yet)", "latest");
  g("basalt_proofs_baseline_nodes", "Trie nodes written by the proofs store's baseline (init)", "baselineNodes");
  c("basalt_proofs_forward_blocks_total", "Canonical blocks written forward into the proofs store", "forwardBlocks");
  c("basalt_proofs_backfill_blocks_total", "Blocks the proofs window was extended backwards by (init backfill)", "backfillBlocks");
  g("basalt_proofs_backfill_block_seconds", "Backfill time per block in the last turn, seconds", "backfillMicrosPerBlock", 1e-6);
  g("basalt_proofs_backfill_remaining_blocks", "Blocks the proofs window still extends backwards by before it is as long as configured (init; ETA = this × backfill seconds per block)", "backfillRemaining");
  c("basalt_proofs_unwound_blocks_total", "Blocks unwound from the proofs store after reorgs", "unwoundBlocks");
  c("basalt_proofs_pruned_blocks_total", "Blocks pruned from the proofs window's far end", "prunedBlocks");
  g("basalt_proofs_writer_stopped_number", "1 when the proofs writer stopped on an error (reads continue)", "writerStopped");
  g("basalt_proofs_backfill_stopped_number", "Block the proofs window's backward extension stopped at because the main store keeps no older state history (-1: it did not stop)", "backfillStoppedAt");
  c("basalt_proofs_backfill_history_stops_total", "Times the proofs window's backward extension stopped at the main store's state history floor", "backfillHistoryStops");
  c("basalt_proofs_sync_node_reads_total", "Trie nodes read from the proofs store by forward and backfill steps", "syncNodeReads");
  c("basalt_proofs_sync_node_misses_total", "Trie nodes a forward or backfill step needed that its prefetch had not read (each runs that trie's update again)", "syncNodeMisses");
}
