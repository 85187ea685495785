/**
 * The block-answer cache: rendered once per block and answer, ready before the first request
 * for a new head, evicted when a reorg removes the block, counted as hits and misses.
 */
import { createBlock, type Block } from "@ethereumjs/block";
import { describe, expect, it } from "vitest";
import { BlockResponseCache, responseCacheHits, responseCacheMisses, type BlockAnswer, type CanonicalBlocks } from "../../src/rpc/responseCache.js";

function block(n: bigint, parent?: Block, extra = 0): Block {
  const parentHash = parent?.hash() ?? new Uint8Array(32);
  return createBlock({ header: { number: n, gasLimit: 30_000_000n, parentHash, extraData: new Uint8Array([extra]) } }, { freeze: true });
}

/** A chain of blocks by number whose head the test moves; counts its canonical-table reads. */
class TestChain implements CanonicalBlocks {
  reads = 0;
  canonical: Block[] = [];
  get head(): Block {
    return this.canonical.at(-1)!;
  }
  getBlockByNumber(n: bigint): Block | undefined {
    this.reads++;
    return this.canonical[Number(n)];
  }
  /** Builds `count` blocks on top of the head (or from genesis), tagged `extra` (forks differ by it). */
  extend(count: number, extra = 0): void {
    for (let i = 0; i < count; i++) {
      const parent = this.canonical.at(-1);
      this.canonical.push(block(BigInt(this.canonical.length), parent, extra));
    }
  }
}

const number = (b: Block): string => b.header.number.toString();

async function count(c: typeof responseCacheHits, answer: BlockAnswer): Promise<number> {
  const m = await c.get();
  return m.values.find((v) => v.labels.answer === answer)?.value ?? 0;
}

describe("block response cache", () => {
  it("renders each answer of a block once and serves the same bytes after", async () => {
    const renders: string[] = [];
    const cache = new BlockResponseCache((b, a) => {
      renders.push(`${b.header.number}:${a}`);
      return a === "receipts" ? undefined : JSON.stringify({ number: Number(b.header.number), a });
    });
    const b1 = block(1n);
    const misses = await count(responseCacheMisses, "full");
    const hits = await count(responseCacheHits, "full");
    const first = cache.get(b1, "full")!;
    expect(first.json).toBe('{"number":1,"a":"full"}');
    expect(cache.get(b1, "full")).toBe(first);
    expect(renders).toEqual(["1:full"]);
    expect(await count(responseCacheMisses, "full")).toBe(misses + 1);
    expect(await count(responseCacheHits, "full")).toBe(hits + 1);
    // An answer the block does not have (no receipts stored) is not cached.
    expect(cache.get(b1, "receipts")).toBeUndefined();
    expect(cache.get(b1, "receipts")).toBeUndefined();
    expect(renders.filter((r) => r === "1:receipts").length).toBe(2);
  });

  it("renders a new head before it is asked for and evicts reorged blocks", () => {
    const renders: string[] = [];
    const cache = new BlockResponseCache((b, a) => {
      renders.push(`${b.header.number}:${a}`);
      return JSON.stringify(a);
    });
    const old = block(5n);
    cache.onHead(old, []);
    expect(renders).toEqual(["5:hashes", "5:full", "5:receipts"]);
    cache.get(old, "hashes");
    expect(renders.length).toBe(3);
    const replacement = createBlock({ header: { number: 5n, gasLimit: 30_000_000n, extraData: new Uint8Array([1]) } });
    cache.onHead(replacement, [old]);
    expect(cache.size).toBe(1);
    cache.get(old, "hashes"); // rendered again: it was evicted
    expect(renders.at(-1)).toBe("5:hashes");
  });

  it("answers block numbers from the canonical blocks, reading each number once while the head only grows", () => {
    const chain = new TestChain();
    chain.extend(5);
    const cache = new BlockResponseCache((b, a) => (a === "receipts" && b.header.number === 2n ? undefined : `"${number(b)}:${a}"`), chain);
    expect(cache.getByNumber(3n, "full")?.json).toBe('"3:full"');
    expect(cache.getByNumber(3n, "full")?.json).toBe('"3:full"');
    expect(chain.reads).toBe(1);
    // Another answer of the block is a miss: the block is read again to render it, once.
    expect(cache.getByNumber(3n, "hashes")?.json).toBe('"3:hashes"');
    expect(cache.getByNumber(3n, "hashes")?.json).toBe('"3:hashes"');
    expect(chain.reads).toBe(2);
    // The head itself needs no read; above the head there is no block; a missing answer is undefined.
    expect(cache.getByNumber(4n, "full")?.json).toBe('"4:full"');
    expect(cache.getByNumber(5n, "full")).toBeNull();
    expect(cache.getByNumber(2n, "receipts")).toBeUndefined();
    const reads = chain.reads;
    // A child of the indexed head keeps the index.
    chain.extend(1);
    expect(cache.getByNumber(3n, "full")?.json).toBe('"3:full"');
    expect(cache.getByNumber(5n, "full")?.json).toBe('"5:full"');
    expect(chain.reads).toBe(reads);
  });

  it("forgets the numbers when the head moves to another branch (reorg) or jumps", () => {
    const chain = new TestChain();
    chain.extend(5);
    const cache = new BlockResponseCache((b, a) => `"${number(b)}:${b.header.extraData[0]}:${a}"`, chain);
    cache.onHead(chain.head, []);
    expect(cache.getByNumber(3n, "full")?.json).toBe('"3:0:full"');
    expect(cache.getByNumber(4n, "full")?.json).toBe('"4:0:full"');
    // Reorg: blocks 3 and 4 replaced by another branch, one block longer.
    const old = chain.canonical.splice(3);
    chain.extend(3, 1);
    cache.onHead(chain.head, old);
    expect(cache.getByNumber(3n, "full")?.json).toBe('"3:1:full"');
    expect(cache.getByNumber(4n, "full")?.json).toBe('"4:1:full"');
    // Same branch, but several blocks at once: the index cannot tell, it is rebuilt.
    chain.extend(2, 1);
    const reads = chain.reads;
    expect(cache.getByNumber(4n, "full")?.json).toBe('"4:1:full"');
    expect(chain.reads).toBe(reads + 1);
    // The reorged blocks' own entries are gone, even when asked for by the same block objects.
    expect(cache.get(old[0]!, "full")?.json).toBe('"3:0:full"');
  });

  it("evicts the least recently used block beyond its capacity", () => {
    const renders: string[] = [];
    const cache = new BlockResponseCache((b, a) => {
      renders.push(`${number(b)}:${a}`);
      return `"${number(b)}"`;
    }, undefined, 2);
    const [b1, b2, b3] = [block(1n), block(2n), block(3n)];
    cache.get(b1, "full");
    cache.get(b2, "full");
    cache.get(b1, "full"); // b1 is now more recent than b2
    cache.get(b3, "full"); // evicts b2
    expect(cache.size).toBe(2);
    cache.get(b1, "full");
    expect(renders).toEqual(["1:full", "2:full", "3:full"]);
    cache.get(b2, "full");
    expect(renders.at(-1)).toBe("2:full");
  });

  it("finds a block's answers from another decoding of the same block", () => {
    let renders = 0;
    const cache = new BlockResponseCache(() => {
      renders++;
      return "1";
    });
    const a = block(7n);
    const b = block(7n);
    expect(a).not.toBe(b);
    cache.get(a, "hashes");
    expect(cache.get(b, "hashes")).toBe(cache.get(a, "hashes"));
    expect(renders).toBe(1);
  });

  it("with capacity 0 (--rpc.response-cache-blocks 0) renders every request and keeps nothing", () => {
    const renders: string[] = [];
    const chain = new TestChain();
    chain.extend(3);
    const cache = new BlockResponseCache(
      (b, a) => {
        renders.push(`${b.header.number}:${a}`);
        return JSON.stringify({ number: Number(b.header.number), a });
      },
      chain,
      0,
    );
    cache.onHead(chain.head, []);
    expect(renders).toEqual([]);
    expect(cache.getByNumber(1n, "full")!.json).toBe('{"number":1,"a":"full"}');
    expect(cache.getByNumber(1n, "full")!.json).toBe('{"number":1,"a":"full"}');
    expect(cache.get(chain.head, "receipts")!.json).toBe('{"number":2,"a":"receipts"}');
    expect(cache.getByNumber(9n, "hashes")).toBeNull();
    expect(renders).toEqual(["1:full", "1:full", "2:receipts"]);
    expect(cache.size).toBe(0);
  });
});
