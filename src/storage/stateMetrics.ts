/**
 * Prometheus metrics of the state layout (created with src/util/metrics.ts): trie node reads by
 * where they were answered, and the trie writes of each commit.
 */
import { counter } from "../util/metrics.js";

/** Where a trie node read was answered. */
export type TrieReadSource = "cache" | "disk" | "missing";

/** Trie node reads of this process: from the per-thread path cache, from the store, or not found. */
export const trieReadsTotal = counter<"source">({
  name: "basalt_storage_trie_reads_total",
  help: "State trie node reads by where they were answered: the per-thread path cache (cache), the store's tables (disk), not found (missing)",
  labelNames: ["source"],
});

/** Trie table writes of committed blocks and unwinds. */
export const trieWritesTotal = counter<"op">({
  name: "basalt_storage_trie_writes_total",
  help: "Path-keyed trie table writes of committed blocks and unwinds: nodes put (put) and removed (delete)",
  labelNames: ["op"],
});
