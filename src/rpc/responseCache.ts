/**
 * Final JSON of the block answers — eth_getBlockByNumber / eth_getBlockByHash with hashes and
 * with full transactions, eth_getBlockReceipts — for recent blocks, keyed by block hash (a
 * hash's answers never change, whatever its canonical status). A new head is rendered as soon
 * as it is sealed or imported, before anyone asks; blocks a reorg removed are evicted. Tags and
 * numbers resolve to a hash first, so `latest` hits the same entry as its hash.
 *
 * Answers are held as UTF-8 bytes ({@link RawJson.encoded}). A hit costs no hashing: entries are
 * found by the identity of the decoded `Block` (a WeakMap, so the cache never keeps a block
 * alive), falling back to the hex hash for another decoding of the same block; block numbers
 * resolve through an index of recent canonical numbers (see {@link BlockResponseCache.getByNumber}).
 * Hits and misses are counted in plain numbers and handed to prom-client when it is scraped.
 */
import { Counter, register } from "prom-client";
import type { Block } from "@ethereumjs/block";
import { RESPONSE_CACHE_BLOCKS } from "../config/constants.js";
import { bytesEqual, toHex } from "../util/bytes.js";
import { TypedError } from "../util/errors.js";
import { RawJson } from "./types.js";

/** Stable code of {@link ResponseCacheError}. */
const ResponseCacheErrorCode = { NO_CHAIN: "RPC_CACHE_NO_CHAIN" } as const;
/** A {@link ResponseCacheError}'s code with its metadata. */
type ResponseCacheErrorType = { code: typeof ResponseCacheErrorCode.NO_CHAIN };

/** {@link BlockResponseCache.getByNumber} on a cache built without the canonical blocks (a programming error). */
class ResponseCacheError extends TypedError<ResponseCacheErrorType> {
  constructor() {
    super({ code: ResponseCacheErrorCode.NO_CHAIN }, "BlockResponseCache.getByNumber needs the canonical blocks (constructor)");
  }
}

/** The three cached answers of a block. */
export type BlockAnswer = "hashes" | "full" | "receipts";

const ANSWERS: readonly BlockAnswer[] = ["hashes", "full", "receipts"];

/** Hits and misses since start, by answer kind (all caches of the process), not yet all handed to prom-client. */
const counts = {
  hits: { hashes: 0, full: 0, receipts: 0 } as Record<BlockAnswer, number>,
  misses: { hashes: 0, full: 0, receipts: 0 } as Record<BlockAnswer, number>,
};

/** A counter by answer kind fed from `counts[kind]` on each scrape (the deltas since the last one). */
function counter(name: string, help: string, kind: keyof typeof counts): Counter<"answer"> {
  const existing = register.getSingleMetric(name) as Counter<"answer"> | undefined;
  if (existing !== undefined) return existing;
  const exported: Record<BlockAnswer, number> = { hashes: 0, full: 0, receipts: 0 };
  return new Counter({
    name,
    help,
    labelNames: ["answer"],
    collect(this: Counter<"answer">) {
      for (const answer of ANSWERS) {
        const delta = counts[kind][answer] - exported[answer];
        if (delta > 0) this.inc({ answer }, delta);
        exported[answer] = counts[kind][answer];
      }
    },
  });
}

/** Answers served from the response cache, by answer kind. */
export const responseCacheHits = counter("basalt_rpc_response_cache_hits_total", "Block answers served from the response cache", "hits");
/** Answers rendered because they were not cached, by answer kind. */
export const responseCacheMisses = counter("basalt_rpc_response_cache_misses_total", "Block answers rendered on a response-cache miss", "misses");

/** Renders one answer of a block (JSON text), or undefined when the block has none (no receipts stored). */
type AnswerRenderer = (block: Block, answer: BlockAnswer) => string | undefined;

/** Where block numbers resolve: the chain's head and its canonical blocks. */
export interface CanonicalBlocks {
  readonly head: Block;
  /** The canonical block at `n`, undefined above the head or when missing. */
  getBlockByNumber(n: bigint): Block | undefined;
}

/** One block's cached answers. */
interface Entry {
  /** Hex hash: the key in {@link BlockResponseCache.entries}. */
  readonly key: string;
  readonly number: bigint;
  readonly answers: Partial<Record<BlockAnswer, RawJson>>;
  /** Recency stamp (LRU order without reordering a map on each hit). */
  usedAt: number;
  /** False once evicted or reorged out: identity and number lookups ignore it then. */
  live: boolean;
}

/** LRU of rendered block answers. */
export class BlockResponseCache {
  private readonly entries = new Map<string, Entry>();
  /** Entries by the identity of a decoded block (weak: blocks are not kept alive). */
  private readonly byBlock = new WeakMap<Block, Entry>();
  /** Entries of canonical blocks by number, valid for the chain whose head is {@link indexHead}. */
  private readonly byNumber = new Map<bigint, Entry>();
  private indexHead: Block | undefined;
  private clock = 0;

  constructor(
    private readonly render: AnswerRenderer,
    /** The chain block numbers resolve in ({@link getByNumber}). */
    private readonly canonical?: CanonicalBlocks,
    private readonly capacity = RESPONSE_CACHE_BLOCKS,
  ) {}

  /** The answer for `block`, rendered once (every time with capacity 0). */
  get(block: Block, answer: BlockAnswer): RawJson | undefined {
    if (this.capacity === 0) return this.uncached(block, answer);
    return this.answerOf(this.entryOf(block), block, answer);
  }

  /** Capacity 0 (`--rpc.response-cache-blocks 0`): `block`'s answer rendered now, kept nowhere (a miss). */
  private uncached(block: Block, answer: BlockAnswer): RawJson | undefined {
    counts.misses[answer]++;
    const json = this.render(block, answer);
    return json === undefined ? undefined : RawJson.encoded(json);
  }

  /**
   * The answer for the canonical block number `n`: null when there is no such block (above the
   * head), undefined when the block has no such answer (receipts not stored). Exactly what
   * `get(canonical.getBlockByNumber(n))` answers, without reading the canonical table for
   * numbers seen before: the number index holds blocks that were canonical under
   * {@link indexHead}, and is kept only while the head is that block or its child (their
   * ancestors — the canonical blocks — are then unchanged); any other head clears it.
   */
  getByNumber(n: bigint, answer: BlockAnswer): RawJson | null | undefined {
    const chain = this.canonical;
    if (chain === undefined) throw new ResponseCacheError();
    const head = chain.head;
    if (this.capacity === 0) {
      const block = n === head.header.number ? head : chain.getBlockByNumber(n);
      return block === undefined ? null : this.uncached(block, answer);
    }
    if (head !== this.indexHead) this.reindex(head);
    const indexed = this.byNumber.get(n);
    if (indexed !== undefined && indexed.live) {
      const hit = indexed.answers[answer];
      if (hit !== undefined) return this.hit(indexed, answer, hit);
    }
    const block = n === head.header.number ? head : chain.getBlockByNumber(n);
    if (block === undefined) return null;
    const entry = this.entryOf(block);
    this.byNumber.set(n, entry);
    return this.answerOf(entry, block, answer);
  }

  /** A new head: render its answers now; forget the blocks a reorg removed. */
  onHead(head: Block, reorged: readonly Block[]): void {
    if (this.capacity === 0) return;
    for (const b of reorged) {
      const e = this.entries.get(toHex(b.hash()));
      if (e !== undefined) this.evict(e);
    }
    const e = this.entryOf(head);
    for (const answer of ANSWERS) {
      if (e.answers[answer] !== undefined) continue;
      const json = this.render(head, answer);
      if (json !== undefined) e.answers[answer] = RawJson.encoded(json);
    }
  }

  /** Number of blocks held. */
  get size(): number {
    return this.entries.size;
  }

  /** The entry of `block` (created empty when it has none), marked as just used. */
  private entryOf(block: Block): Entry {
    let e = this.byBlock.get(block);
    if (e === undefined || !e.live) {
      const key = toHex(block.hash());
      e = this.entries.get(key);
      if (e === undefined) {
        e = { key, number: block.header.number, answers: {}, usedAt: ++this.clock, live: true };
        this.entries.set(key, e);
        if (this.entries.size > this.capacity) this.evictLeastRecent();
      }
      this.byBlock.set(block, e);
    }
    e.usedAt = ++this.clock;
    return e;
  }

  /** The cached answer of `entry`, or `block`'s rendered now (undefined: the block has none, not cached). */
  private answerOf(entry: Entry, block: Block, answer: BlockAnswer): RawJson | undefined {
    const hit = entry.answers[answer];
    if (hit !== undefined) return this.hit(entry, answer, hit);
    counts.misses[answer]++;
    const json = this.render(block, answer);
    if (json === undefined) return undefined;
    const raw = RawJson.encoded(json);
    entry.answers[answer] = raw;
    return raw;
  }

  private hit(entry: Entry, answer: BlockAnswer, raw: RawJson): RawJson {
    entry.usedAt = ++this.clock;
    counts.hits[answer]++;
    return raw;
  }

  /** Keeps the number index when `head` extends the indexed head by one block, else clears it. */
  private reindex(head: Block): void {
    const prev = this.indexHead;
    if (prev === undefined || !bytesEqual(head.header.parentHash, prev.hash())) this.byNumber.clear();
    this.indexHead = head;
  }

  private evictLeastRecent(): void {
    let oldest: Entry | undefined;
    for (const e of this.entries.values()) if (oldest === undefined || e.usedAt < oldest.usedAt) oldest = e;
    if (oldest !== undefined) this.evict(oldest);
  }

  private evict(e: Entry): void {
    e.live = false;
    this.entries.delete(e.key);
    if (this.byNumber.get(e.number) === e) this.byNumber.delete(e.number);
  }
}
