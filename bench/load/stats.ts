/** Counting of outcomes and latencies during one load step or peak run, mergeable across the generator's threads. */
import { LatencyHistogram } from "./histogram.js";
import type { LatencyStats } from "./types.js";

/** Distinct failure kinds kept per run; further kinds are counted under {@link OTHER_KIND} (bounds the report's size). */
export const MAX_FAILURE_KINDS = 32;
/** The failure kind that collects kinds beyond {@link MAX_FAILURE_KINDS}. */
export const OTHER_KIND = "other";
/** Longest failure kind kept (validator reasons can be long; kinds are table cells and map keys). */
export const MAX_KIND_CHARS = 100;

/** Nearest-rank percentile `p` (0..100) of ascending `sorted` (non-empty). */
function percentile(sorted: Float64Array, p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

/** Rounds a millisecond figure to microseconds (reports need no more). */
function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Exact nearest-rank p50/p90/p99/max of `samples` in ms, rounded to µs; all 0 when there are none. */
export function latencyStats(samples: ArrayLike<number>): LatencyStats {
  if (samples.length === 0) return { p50: 0, p90: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(samples).sort();
  return {
    p50: roundMs(percentile(sorted, 50)),
    p90: roundMs(percentile(sorted, 90)),
    p99: roundMs(percentile(sorted, 99)),
    max: roundMs(sorted[sorted.length - 1] as number),
  };
}

/** p50/p90/p99/max of a histogram in ms, rounded to µs (bucket tops: at most 0.8 % above the exact figure). */
export function histogramStats(h: LatencyHistogram): LatencyStats {
  return { p50: roundMs(h.percentile(50)), p90: roundMs(h.percentile(90)), p99: roundMs(h.percentile(99)), max: roundMs(h.maxMs) };
}

/** A {@link Tally} as plain data (structured-cloneable: it crosses from the generator's threads to the main thread). */
export interface TallyData {
  ok: number;
  failed: number;
  failures: Record<string, number>;
  unchecked: number;
  counts: Float64Array;
  count: number;
  maxMs: number;
}

/** Running counts of one run: successes, failures by kind, calls accepted on framing alone, and a latency histogram. */
export class Tally {
  ok = 0;
  failed = 0;
  /** successful calls whose body was not parsed (large answers outside the sample: status and framing checked only) */
  unchecked = 0;
  readonly failures: Record<string, number> = {};
  private kinds = 0;
  private readonly histogram: LatencyHistogram;

  constructor(histogram: LatencyHistogram = new LatencyHistogram()) {
    this.histogram = histogram;
  }

  /** Counts `n` failed calls of `kind`. */
  fail(kind: string, n = 1): void {
    if (n <= 0) return;
    this.failed += n;
    let k = kind.length > MAX_KIND_CHARS ? `${kind.slice(0, MAX_KIND_CHARS - 1)}…` : kind;
    if (this.failures[k] === undefined) {
      if (this.kinds >= MAX_FAILURE_KINDS) k = OTHER_KIND;
      else this.kinds++;
    }
    this.failures[k] = (this.failures[k] ?? 0) + n;
  }

  /** Counts `n` successful calls. */
  succeed(n = 1): void {
    this.ok += n;
  }

  /** Records one request's latency in ms. */
  latency(ms: number): void {
    this.histogram.record(ms);
  }

  /** Latencies recorded so far. */
  get latencies(): number {
    return this.histogram.count;
  }

  /** Percentiles of the latencies recorded so far. */
  stats(): LatencyStats {
    return histogramStats(this.histogram);
  }

  /** failed / (ok + failed), 0 when nothing was counted. */
  errorRate(): number {
    const n = this.ok + this.failed;
    return n === 0 ? 0 : this.failed / n;
  }

  /** Adds `other`'s counts, failure kinds and latencies to this tally. */
  merge(other: Tally | TallyData): void {
    const data = other instanceof Tally ? other.toData() : other;
    this.ok += data.ok;
    this.unchecked += data.unchecked;
    for (const [k, n] of Object.entries(data.failures)) this.fail(k, n);
    this.histogram.merge(new LatencyHistogram(data.counts, data.count, data.maxMs));
  }

  /** This tally as plain data (the histogram's counts are shared, not copied). */
  toData(): TallyData {
    const h = this.histogram;
    return { ok: this.ok, failed: this.failed, failures: { ...this.failures }, unchecked: this.unchecked, counts: h.counts, count: h.count, maxMs: h.maxMs };
  }
}
