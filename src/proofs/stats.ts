/**
 * What the proofs worker reports about its store.
 *
 * The window's ends and the writer's state are shared state in a SharedArrayBuffer: the main
 * thread serves them from RPC without a message (`debug_proofsSyncStatus`, the follow mode's gate,
 * `ProofsService.latestBlock()`, `eth_getProof`'s window check) and exports them as gauges
 * (`proofs/metrics.ts`). Float64 slots (block numbers exceed 2^31); one writer, the proofs worker.
 *
 * Everything else is a counter or gauge of the worker's own thread (`proofs/metrics.ts`), scraped
 * into `/metrics` by the worker host.
 */
import { proofsWorkerMetrics, type ProofsWorkerMetric } from "./metrics.js";

/** The shared slots: the window's ends and the writer's state. */
const SHARED = ["earliest", "latest", "writerStopped", "backfillStoppedAt"] as const;
type SharedStat = (typeof SHARED)[number];

/** A named stat: a shared slot or a worker metric. */
type ProofsStat = SharedStat | ProofsWorkerMetric;

function sharedIndex(name: ProofsStat): number {
  return (SHARED as readonly string[]).indexOf(name);
}

/** Allocates the shared slots (−1 in `earliest`/`latest` = none yet, in `backfillStoppedAt` = not stopped). */
export function allocateProofsStats(): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(SHARED.length * 8);
  const v = new Float64Array(sab);
  v[sharedIndex("earliest")] = -1;
  v[sharedIndex("latest")] = -1;
  v[sharedIndex("backfillStoppedAt")] = -1;
  return sab;
}

/**
 * Access to the stats: shared slots by name (both threads), worker metrics by name (the worker's
 * thread; {@link get} reads this instance's tally of them).
 */
export class ProofsStats {
  private readonly v: Float64Array;
  private readonly tally = new Map<ProofsWorkerMetric, number>();
  private metrics: ReturnType<typeof proofsWorkerMetrics> | undefined;
  constructor(sab: SharedArrayBuffer) {
    this.v = new Float64Array(sab);
  }
  private metric(name: ProofsWorkerMetric): { set(v: number): void; inc(v: number): void } {
    this.metrics ??= proofsWorkerMetrics();
    return this.metrics[name];
  }
  set(name: ProofsStat, value: number): void {
    const i = sharedIndex(name);
    if (i >= 0) this.v[i] = value;
    else {
      this.tally.set(name as ProofsWorkerMetric, value);
      this.metric(name as ProofsWorkerMetric).set(value);
    }
  }
  inc(name: ProofsStat, by = 1): void {
    const i = sharedIndex(name);
    if (i >= 0) this.v[i]! += by;
    else {
      this.tally.set(name as ProofsWorkerMetric, (this.tally.get(name as ProofsWorkerMetric) ?? 0) + by);
      this.metric(name as ProofsWorkerMetric).inc(by);
    }
  }
  get(name: ProofsStat): number {
    const i = sharedIndex(name);
    return i >= 0 ? this.v[i]! : (this.tally.get(name as ProofsWorkerMetric) ?? 0);
  }
}
