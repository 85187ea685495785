/**
 * The derivation worker's counters: plain numbers by key, sent to the main thread with each
 * status message (`protocol.ts` `StatusWire`), where `metrics.ts` turns them into Prometheus
 * families. Keys are `<family>` or `<family>:<label>` (e.g. `channels:CHANNEL_TIMED_OUT`,
 * `blocks:consolidated`, `l1:eth_getBlockByNumber`).
 */
export class DerivationCounters {
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
