/**
 * The block-answer cache: rendered once per block and answer, ready before the first request
 * for a new head, evicted when a reorg removes the block, counted as hits and misses.
 */
import { createBlock, type Block } from "@ethereumjs/block";
import { describe, expect, it } from "vitest";
import { BlockResponseCache, responseCacheHits, responseCacheMisses, type BlockAnswer } from "../../src/rpc/responseCache.js";

function block(n: bigint): Block {
  return createBlock({ header: { number: n, gasLimit: 30_000_000n } });
}

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
});
