/**
 * The one way worker threads' metrics reach `/metrics`: each running {@link WorkerHost} is a
 * source; a scrape asks every source for its thread's prom-client metrics and aggregates them with
 * the main thread's registry (prom-client's cluster aggregation: same-named metrics are summed, so
 * a family the main thread defines but only a worker writes shows the worker's values).
 *
 * A worker contributes only the metrics under its own prefixes (`basalt_<subsystem>_` by default):
 * modules it shares with the main thread (chain, storage) register their gauges in both threads,
 * and summing those would double them. Each value must be produced by exactly one thread.
 */
import { AggregatorRegistry, register } from "prom-client";
import type { WorkerMetrics } from "./workerProtocol.js";

interface Source {
  scrape: () => Promise<WorkerMetrics | undefined>;
  prefixes: readonly string[];
}

const sources = new Set<Source>();

/** Adds a worker's metrics named under `prefixes` to every scrape; returns the removal. */
export function addMetricsSource(scrape: Source["scrape"], prefixes: readonly string[]): () => void {
  const s = { scrape, prefixes };
  sources.add(s);
  return () => void sources.delete(s);
}

async function scrapeOwn(s: Source): Promise<WorkerMetrics> {
  const all = (await s.scrape()) ?? [];
  return all.filter((m) => s.prefixes.some((p) => m.name.startsWith(p)));
}

/** The exposition text of the main registry and every worker's (a worker that does not answer in time is left out). */
export async function scrapeAllMetrics(): Promise<{ text: string; contentType: string }> {
  if (sources.size === 0) return { text: await register.metrics(), contentType: register.contentType };
  const main = await register.getMetricsAsJSON();
  const workers = await Promise.all([...sources].map(scrapeOwn));
  const all = [main, ...workers.filter((w) => w.length > 0)];
  const merged = AggregatorRegistry.aggregate(all as Parameters<typeof AggregatorRegistry.aggregate>[0]);
  return { text: await merged.metrics(), contentType: register.contentType };
}
