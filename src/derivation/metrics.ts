/**
 * Prometheus metrics of L1 derivation. Each value is produced by one thread:
 * - the main thread (`service.ts`, from the worker's last status, which `optimism_syncStatus`
 *   reads too): L1 head / current / safe / finalized numbers, the lag and the safe L2 number;
 * - the derivation worker (`workers/derivation.ts`, from its pipeline's tally, on its own
 *   registry, which the worker host scrapes into `/metrics`): the counters of frames, channels,
 *   batches, blobs, KZG failures, applied blocks, resets, errors and L1 requests.
 * The main thread registers every family (so a scrape lists them before derivation runs); its
 * counter families stay empty and the worker's values are summed in.
 */
import type { Counter, Gauge } from "prom-client";
import { counter, gauge, isMetricRegistered } from "../util/metrics.js";
import type { L1BlockRef } from "./batchValidity.js";

type Status = { currentL1?: L1BlockRef; headL1?: L1BlockRef; safeL1?: L1BlockRef; finalizedL1?: L1BlockRef; safeNumber?: number };
let counters: () => Record<string, number> = () => ({});
let status: () => Status = () => ({});

const FIRST = "basalt_derivation_l1_head_number";
const FIRST_COUNTER = "basalt_derivation_l1_blocks_total";

/** Main thread: points the status gauges at the running service (registers every family once). */
export function bindDerivationStatus(readStatus: () => Status): void {
  status = readStatus;
  registerDerivationMetrics();
}

/** Derivation worker: points the counter families at the pipeline's tally (registers only those, in the worker's registry). */
export function bindDerivationCounters(readCounters: () => Record<string, number>): void {
  counters = readCounters;
  registerDerivationCounterMetrics();
}

/** Registers the derivation families (at their empty values until a service binds). Idempotent. */
export function registerDerivationMetrics(): void {
  registerDerivationStatusMetrics();
  registerDerivationCounterMetrics();
}

function registerDerivationStatusMetrics(): void {
  if (isMetricRegistered(FIRST)) return;
  const l1 = (name: string, help: string, pick: (s: Status) => L1BlockRef | undefined): void => {
    gauge({
      name,
      help,
      collect(this: Gauge) {
        const r = pick(status());
        this.set(r === undefined ? -1 : Number(r.number));
      },
    });
  };
  l1(FIRST, "Newest L1 block derivation has seen (-1: none yet)", (s) => s.headL1);
  l1("basalt_derivation_l1_current_number", "L1 block the derivation pipeline is at (current_l1)", (s) => s.currentL1);
  l1("basalt_derivation_l1_safe_number", "L1 block the safe head was derived from (safe_l1)", (s) => s.safeL1);
  l1("basalt_derivation_l1_finalized_number", "Finalized L1 block as last read (finalized_l1)", (s) => s.finalizedL1);
  gauge({
    name: "basalt_derivation_l1_lag_blocks",
    help: "L1 blocks between the L1 head and the block derivation is at",
    collect(this: Gauge) {
      const s = status();
      this.set(s.headL1 === undefined || s.currentL1 === undefined ? 0 : Math.max(0, Number(s.headL1.number - s.currentL1.number)));
    },
  });
  gauge({
    name: "basalt_derivation_safe_l2_number",
    help: "Newest L2 block derived from L1 (the safe head) in this run",
    collect(this: Gauge) {
      this.set(status().safeNumber ?? -1);
    },
  });
}

function registerDerivationCounterMetrics(): void {
  if (isMetricRegistered(FIRST_COUNTER)) return;
  /** A counter family from the counters whose key is `prefix:<label>` (or exactly `prefix`). */
  const family = (name: string, help: string, prefix: string, label?: string): void => {
    counter({
      name,
      help,
      labelNames: label === undefined ? [] : [label],
      collect(this: Counter) {
        this.reset();
        for (const [key, v] of Object.entries(counters())) {
          if (label === undefined) {
            if (key === prefix) this.inc(v);
          } else if (key.startsWith(`${prefix}:`)) this.inc({ [label]: key.slice(prefix.length + 1) }, v);
        }
      },
    });
  };
  family("basalt_derivation_l1_blocks_total", "L1 blocks read by derivation", "l1Blocks");
  family("basalt_derivation_l1_receipts_skipped_total", "L1 blocks whose receipts were not fetched (their bloom holds no log of the rollup's contracts)", "receiptsSkipped");
  family("basalt_derivation_l1_requests_total", "Requests to the L1 execution RPC, by method", "l1", "method");
  family("basalt_derivation_beacon_requests_total", "Requests to the L1 beacon API, by endpoint", "beacon", "endpoint");
  family("basalt_derivation_frames_total", "Frames read from batcher data (read) and dropped with their channel (dropped)", "frames", "outcome");
  family("basalt_derivation_channels_total", "Channels by outcome: read, readError, or the reason their frames were dropped", "channels", "outcome");
  family("basalt_derivation_batches_total", "Batches decoded from channels", "batches", "outcome");
  family("basalt_derivation_batches_dropped_total", "Batches dropped by the validity rules (with the rest of their channel), by reason", "batchesDropped", "reason");
  family("basalt_derivation_batcher_items_dropped_total", "Batcher transactions or blobs dropped (frames that do not parse, blobs badly encoded), by reason", "itemsDropped", "reason");
  family("basalt_derivation_unauthorized_transactions_total", "Batch inbox transactions not sent by the batcher (ignored)", "unauthorizedTxs");
  family("basalt_derivation_blobs_fetched_total", "Blobs fetched from the beacon API and verified", "blobs");
  family("basalt_derivation_kzg_failures_total", "Blob fetches refused because a served blob failed its KZG check (retried)", "kzgFailures");
  family("basalt_derivation_blocks_total", "Derived L2 blocks applied: consolidated (the unsafe block matched), built (none held), replaced (the unsafe block differed), depositsOnly, emptyBatch", "blocks", "result");
  family("basalt_derivation_resets_total", "Pipeline resets by cause: start, l1Reorg (also attributes that cannot follow the safe head), engine, requested, critical", "resets", "cause");
  family("basalt_derivation_errors_total", "Steps that failed and were retried, by kind (l1, beacon, kzg, critical)", "errors", "kind");
}
