/** Counting of outcomes and latencies during one load step or peak run. */
import type { LatencyStats } from "./types.js";

/** Distinct failure kinds kept per run; further kinds are counted under {@link OTHER_KIND} (bounds the report's size). */
export const MAX_FAILURE_KINDS = 32;
/** The failure kind that collects kinds beyond {@link MAX_FAILURE_KINDS}. */
export const OTHER_KIND = "other";
/** Longest failure kind kept (validator reasons can be long; kinds are table cells and map keys). */
export const MAX_KIND_CHARS = 100;

/** Initial capacity of the latency sample buffer: one 5 s step at 2048 req/s fits without growing. */
const INITIAL_SAMPLES = 16_384;

/** Nearest-rank percentile `p` (0..100) of ascending `sorted` (non-empty). */
function percentile(sorted: Float64Array, p: number): number {
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

/** Rounds a millisecond figure to microseconds (reports need no more). */
function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Nearest-rank p50/p90/p99/max of `samples` in ms, rounded to µs; all 0 when there are none. */
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

/** Running counts of one run: successes, failures by kind, and latency samples. */
export class Tally {
  ok = 0;
  failed = 0;
  readonly failures: Record<string, number> = {};
  private kinds = 0;
  private samples = new Float64Array(INITIAL_SAMPLES);
  private count = 0;

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
    if (this.count === this.samples.length) {
      const bigger = new Float64Array(this.samples.length * 2);
      bigger.set(this.samples);
      this.samples = bigger;
    }
    this.samples[this.count++] = ms;
  }

  /** Percentiles of the latencies recorded so far. */
  stats(): LatencyStats {
    return latencyStats(this.samples.subarray(0, this.count));
  }

  /** failed / (ok + failed), 0 when nothing was counted. */
  errorRate(): number {
    const n = this.ok + this.failed;
    return n === 0 ? 0 : this.failed / n;
  }
}
