/**
 * Counters and gauges of the proofs worker, in a SharedArrayBuffer both threads see: the worker
 * writes them, the main thread's metrics collectors (`proofs/metrics.ts`) and
 * `debug_proofsSyncStatus` read them without a message. Float64 slots (block numbers exceed 2^31).
 */
const SLOTS = [
  "earliest",
  "latest",
  "baselineNodes",
  "forwardBlocks",
  "backfillBlocks",
  "backfillMicrosPerBlock",
  "backfillRemaining",
  "unwoundBlocks",
  "prunedBlocks",
  "writerStopped",
  "backfillStoppedAt",
  "backfillHistoryStops",
  "syncNodeReads",
  "syncNodeMisses",
] as const;

/** A named slot. */
export type ProofsStat = (typeof SLOTS)[number];

/** Allocates the shared slots (−1 in `earliest`/`latest` = none yet, in `backfillStoppedAt` = not stopped). */
export function allocateProofsStats(): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(SLOTS.length * 8);
  const v = new Float64Array(sab);
  v[SLOTS.indexOf("earliest")] = -1;
  v[SLOTS.indexOf("latest")] = -1;
  v[SLOTS.indexOf("backfillStoppedAt")] = -1;
  return sab;
}

/** Access to the slots (one writer: the proofs worker). */
export class ProofsStats {
  private readonly v: Float64Array;
  constructor(sab: SharedArrayBuffer) {
    this.v = new Float64Array(sab);
  }
  set(name: ProofsStat, value: number): void {
    this.v[SLOTS.indexOf(name)] = value;
  }
  inc(name: ProofsStat, by = 1): void {
    this.v[SLOTS.indexOf(name)]! += by;
  }
  get(name: ProofsStat): number {
    return this.v[SLOTS.indexOf(name)]!;
  }
}
