/**
 * Prometheus gauges of the chain, read at scrape time: head / safe / finalized numbers, the
 * head's age and gas used. Binding the chain also binds the store's size gauge to its datadir
 * (src/storage/metrics.ts).
 */
import { bindStorageMetrics } from "../storage/metrics.js";
import { gauge } from "../util/metrics.js";

/** What the gauges read; `Chain` satisfies it. */
export interface ChainMetricsSource {
  readonly head: { readonly header: { readonly number: bigint; readonly timestamp: bigint; readonly gasUsed: bigint } };
  pointer(name: "safe" | "finalized"): { readonly header: { readonly number: bigint } } | undefined;
}

let source: ChainMetricsSource | undefined;

/**
 * Points the gauges at the running chain and its datadir (one node per process); `undefined`
 * unbinds (the gauges then report nothing new).
 */
export function bindChainMetrics(chain: ChainMetricsSource | undefined, dir?: string): void {
  source = chain;
  bindStorageMetrics(chain === undefined ? undefined : dir);
  registerChainGauges();
}

let registered = false;

/** Registers the gauges once per process (bound or not, so every scrape lists them). */
export function registerChainGauges(): void {
  if (registered) return;
  registered = true;
  gauge({
    name: "basalt_chain_head_number",
    help: "Number of the canonical head block",
    collect() {
      if (source !== undefined) this.set(Number(source.head.header.number));
    },
  });
  gauge({
    name: "basalt_chain_safe_number",
    help: "Number of the safe block",
    collect() {
      const b = source?.pointer("safe");
      if (b !== undefined) this.set(Number(b.header.number));
    },
  });
  gauge({
    name: "basalt_chain_finalized_number",
    help: "Number of the finalized block",
    collect() {
      const b = source?.pointer("finalized");
      if (b !== undefined) this.set(Number(b.header.number));
    },
  });
  gauge({
    name: "basalt_chain_head_age_seconds",
    help: "Seconds since the head block's timestamp (negative when it is ahead of this clock)",
    collect() {
      if (source !== undefined) this.set(Date.now() / 1000 - Number(source.head.header.timestamp));
    },
  });
  gauge({
    name: "basalt_chain_head_used_gas",
    help: "Gas used by the head block",
    collect() {
      if (source !== undefined) this.set(Number(source.head.header.gasUsed));
    },
  });
}
