/**
 * A worker's tally: plain numbers by key, counted on the worker's own thread (the derivation
 * pipeline, the devp2p node) and read there by its prom-client collectors at scrape time (the
 * worker host brings them to `/metrics`); nothing ships the map across threads. Keys are
 * `<family>` or `<family>:<label>` (e.g. `channels:CHANNEL_TIMED_OUT`, `dropped:invalid`).
 */
export class Counters {
  private readonly values = new Map<string, number>();

  /** Adds `n` (default 1) to counter `key`. */
  inc(key: string, n = 1): void {
    if (n === 0) return;
    this.values.set(key, (this.values.get(key) ?? 0) + n);
  }

  /** Sets gauge-like value `key`. */
  set(key: string, v: number): void {
    this.values.set(key, v);
  }

  /** The value of `key` (0 when never set). */
  get(key: string): number {
    return this.values.get(key) ?? 0;
  }

  /** A plain copy of every value. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.values);
  }
}
