/**
 * Counters of the P2P worker, read as samples (`protocol.ts` StatSample) by the worker's own
 * prom-client collectors (`src/p2p/metrics.ts`, scraped by the worker host) and by
 * `P2PService.stats()`. Label values come from fixed sets (versions, results, reasons,
 * directions), so the map stays small.
 */
import type { StatSample } from "./protocol.js";

/** See the module comment. */
export class P2PStats {
  private readonly counters = new Map<string, StatSample>();

  /** Adds `by` to the counter `name` with `labels`. */
  inc(name: string, labels: Record<string, string> = {}, by = 1): void {
    const key = `${name}|${Object.entries(labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(",")}`;
    const s = this.counters.get(key);
    if (s === undefined) this.counters.set(key, { name, labels, value: by });
    else s.value += by;
  }

  /** The counter's value (0 when never counted), for tests and logs. */
  get(name: string, labels: Record<string, string> = {}): number {
    let total = 0;
    for (const s of this.counters.values()) {
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) total += s.value;
    }
    return total;
  }

  /** Every counter, as samples. */
  samples(): StatSample[] {
    return [...this.counters.values()].map((s) => ({ ...s, labels: { ...s.labels } }));
  }
}
