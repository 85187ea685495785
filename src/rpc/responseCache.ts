/**
 * Final JSON of the block answers — eth_getBlockByNumber / eth_getBlockByHash with hashes and
 * with full transactions, eth_getBlockReceipts — for recent blocks, keyed by block hash (a
 * hash's answers never change, whatever its canonical status). A new head is rendered as soon
 * as it is sealed or imported, before anyone asks; blocks a reorg removed are evicted. Tags and
 * numbers resolve to a hash first, so `latest` hits the same entry as its hash.
 */
import { Counter, register } from "prom-client";
import type { Block } from "@ethereumjs/block";
import { RESPONSE_CACHE_BLOCKS } from "../config/constants.js";
import { toHex } from "../util/bytes.js";
import { LruMap } from "../util/lru.js";
import { RawJson } from "./types.js";

/** The three cached answers of a block. */
export type BlockAnswer = "hashes" | "full" | "receipts";

function counter(name: string, help: string): Counter<"answer"> {
  return (register.getSingleMetric(name) as Counter<"answer"> | undefined) ?? new Counter({ name, help, labelNames: ["answer"] });
}

/** Answers served from the response cache, by answer kind. */
export const responseCacheHits = counter("basalt_rpc_response_cache_hits_total", "Block answers served from the response cache");
/** Answers rendered because they were not cached, by answer kind. */
export const responseCacheMisses = counter("basalt_rpc_response_cache_misses_total", "Block answers rendered on a response-cache miss");

/** Renders one answer of a block (JSON text), or undefined when the block has none (no receipts stored). */
export type AnswerRenderer = (block: Block, answer: BlockAnswer) => string | undefined;

/** LRU of rendered block answers. */
export class BlockResponseCache {
  private readonly entries: LruMap<string, Map<BlockAnswer, RawJson>>;

  constructor(
    private readonly render: AnswerRenderer,
    capacity = RESPONSE_CACHE_BLOCKS,
  ) {
    this.entries = new LruMap(capacity);
  }

  /** The answer for `block`, rendered once. */
  get(block: Block, answer: BlockAnswer): RawJson | undefined {
    const key = toHex(block.hash());
    let e = this.entries.get(key);
    const hit = e?.get(answer);
    if (hit !== undefined) {
      responseCacheHits.inc({ answer });
      return hit;
    }
    responseCacheMisses.inc({ answer });
    const json = this.render(block, answer);
    if (json === undefined) return undefined;
    const raw = RawJson.encoded(json);
    if (e === undefined) this.entries.set(key, (e = new Map()));
    e.set(answer, raw);
    return raw;
  }

  /** A new head: render its answers now; forget the blocks a reorg removed. */
  onHead(head: Block, reorged: readonly Block[]): void {
    for (const b of reorged) this.entries.delete(toHex(b.hash()));
    const e = new Map<BlockAnswer, RawJson>();
    for (const answer of ["hashes", "full", "receipts"] as const) {
      const json = this.render(head, answer);
      if (json !== undefined) e.set(answer, RawJson.encoded(json));
    }
    this.entries.set(toHex(head.hash()), e);
  }

  /** Number of blocks held. */
  get size(): number {
    return this.entries.size;
  }
}
