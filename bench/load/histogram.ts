/**
 * A latency histogram with bounded relative error (log-linear buckets over microseconds), so the
 * load generator's threads each count into their own and the main thread adds them up: the
 * percentiles of a multi-threaded run are those of every request, never an average of per-thread
 * percentiles.
 */

/** Sub-bucket bits: values below 2^8 µs are exact; above, each power of two is cut into 128 buckets (≤ 0.8 % error). */
const SUB_BITS = 8;
const SUB_COUNT = 1 << SUB_BITS;
const HALF = SUB_COUNT >> 1;
/** Largest value kept, µs (2^31 − 1 µs ≈ 36 min: longer than any request timeout); larger values count here. */
const MAX_MICROS = 2 ** 31 - 1;
/** Buckets needed to cover 0..{@link MAX_MICROS}. */
export const HISTOGRAM_BUCKETS = SUB_COUNT + (31 - SUB_BITS) * HALF;

/** Bucket of a value in µs (integer, 0..MAX_MICROS). */
function bucketOf(us: number): number {
  if (us < SUB_COUNT) return us;
  const e = 31 - Math.clz32(us) - (SUB_BITS - 1);
  return SUB_COUNT + (e - 1) * HALF + ((us >>> e) - HALF);
}

/** Highest value (µs) a bucket holds. */
function bucketTop(bucket: number): number {
  if (bucket < SUB_COUNT) return bucket;
  const k = bucket - SUB_COUNT;
  const e = Math.floor(k / HALF) + 1;
  return ((k % HALF) + HALF + 1) * 2 ** e - 1;
}

/** Latencies in ms, counted in log-linear buckets; mergeable, serializable as one `Float64Array`. */
export class LatencyHistogram {
  readonly counts: Float64Array;
  /** requests recorded */
  count = 0;
  /** exact largest value recorded, ms */
  maxMs = 0;

  constructor(counts?: Float64Array, count = 0, maxMs = 0) {
    if (counts !== undefined && counts.length !== HISTOGRAM_BUCKETS) {
      throw new RangeError(`histogram of ${counts.length} buckets: expected ${HISTOGRAM_BUCKETS}`);
    }
    this.counts = counts ?? new Float64Array(HISTOGRAM_BUCKETS);
    this.count = count;
    this.maxMs = maxMs;
  }

  /** Records one latency in ms (negative values count as 0). */
  record(ms: number): void {
    const us = Math.min(MAX_MICROS, Math.max(0, Math.round(ms * 1000)));
    this.counts[bucketOf(us)]! += 1;
    this.count++;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  /** Adds every count of `other` to this one. */
  merge(other: LatencyHistogram): void {
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) this.counts[i]! += other.counts[i]!;
    this.count += other.count;
    if (other.maxMs > this.maxMs) this.maxMs = other.maxMs;
  }

  /**
   * Nearest-rank percentile `p` (0..100) in ms: the top of the bucket holding that rank (at most
   * 0.8 % above the true value, never below it), capped at the exact maximum; 0 when empty.
   */
  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.min(this.count, Math.max(1, Math.ceil((p / 100) * this.count)));
    let seen = 0;
    for (let i = 0; i < HISTOGRAM_BUCKETS; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return Math.min(this.maxMs, bucketTop(i) / 1000);
    }
    return this.maxMs;
  }
}
