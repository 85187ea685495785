/**
 * The log index's pieces: shard encoding (runs of blocks as varints) round-trips; appending
 * splits shards near their byte bound and removing the last block undoes an append exactly;
 * a key's blocks in a window, and the AND-of-ORs candidate sets, equal brute force over random
 * data; pruning drops exactly the blocks below the floor.
 */
import { open, type Database, type RootDatabase } from "lmdb";
import { afterEach, describe, expect, it } from "vitest";
import { appendBlocks, blockLogKeys, candidateBlocks, markKeyBlocks, pruneLogIndexBelow, removeLastBlock } from "../../../src/storage/logIndex.js";
import {
  addressKey,
  appendRun,
  decodeShard,
  encodeShard,
  LOG_INDEX_SHARD_BYTES,
  popRun,
  topicKey,
  type BlockRun,
} from "../../../src/storage/logIndexCodec.js";
import { prefixEnd } from "../../../src/storage/keys.js";
import { seededRandom } from "../../helpers/random.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-logindex-");
type Bin = Database<Buffer, Buffer>;

function runsOf(blocks: number[]): BlockRun[] {
  const runs: BlockRun[] = [];
  for (const b of blocks) appendRun(runs, b);
  return runs;
}

function expand(runs: BlockRun[]): number[] {
  return runs.flatMap((r) => Array.from({ length: r.count }, (_, i) => r.start + i));
}

/** Ascending random blocks: dense stretches and gaps up to `maxGap`. */
function randomBlocks(r: () => number, n: number, maxGap: number, start = 0): number[] {
  const out: number[] = [];
  let b = start;
  for (let i = 0; i < n; i++) {
    b += r() < 0.4 ? 1 : 1 + Math.floor(r() * maxGap);
    out.push(b);
  }
  return out;
}

let roots: RootDatabase[] = [];
afterEach(async () => {
  for (const r of roots) await r.close();
  roots = [];
});

function tempDb(): { root: RootDatabase; db: Bin } {
  const root = open({ path: tmp(), compression: false });
  roots.push(root);
  return { root, db: root.openDB({ name: "logIndex", encoding: "binary", keyEncoding: "binary" }) as unknown as Bin };
}

describe("shard codec", () => {
  it("round-trips random runs, large block numbers included", () => {
    const r = seededRandom(1);
    for (let t = 0; t < 200; t++) {
      const blocks = randomBlocks(r, 1 + Math.floor(r() * 300), t % 2 === 0 ? 5 : 5_000_000, Math.floor(r() * 2 ** 40));
      const runs = runsOf(blocks);
      expect(decodeShard(encodeShard(runs))).toEqual(runs);
      expect(expand(runs)).toEqual(blocks);
    }
    expect(decodeShard(encodeShard([]))).toEqual([]);
    // A key in every block: one run, four bytes for ten thousand blocks.
    expect(encodeShard(runsOf(Array.from({ length: 10_000 }, (_, i) => 1_000_000 + i))).length).toBeLessThan(6);
  });

  it("refuses a truncated shard", () => {
    expect(() => decodeShard(Buffer.from([0x80]))).toThrow(RangeError);
  });

  it("popRun removes only the last block", () => {
    const runs = runsOf([3, 4, 5, 9]);
    expect(popRun(runs, 5)).toBe(false);
    expect(popRun(runs, 9)).toBe(true);
    expect(popRun(runs, 5)).toBe(true);
    expect(expand(runs)).toEqual([3, 4]);
  });
});

describe("keys", () => {
  it("tags addresses and topics by position, one key per distinct item", () => {
    const a = new Uint8Array(20).fill(1);
    const t = new Uint8Array(32).fill(2);
    const keys = blockLogKeys([{ logs: [{ address: a, topics: [t, t], data: new Uint8Array() }] }, { logs: [{ address: a, topics: [t], data: new Uint8Array() }] }]);
    expect(keys.map((k) => k.toString("hex"))).toEqual([addressKey(a).toString("hex"), topicKey(0, t).toString("hex"), topicKey(1, t).toString("hex")]);
    expect(addressKey(a)[0]).toBe(0);
    expect(topicKey(3, t)[0]).toBe(4);
  });
});

describe("shards in LMDB", () => {
  it("appends block by block and in batches to the same shards; reads any window; removing undoes appending", () => {
    const { root, db } = tempDb();
    const r = seededRandom(3);
    const blocks = randomBlocks(r, 4000, 300);
    const k1 = addressKey(new Uint8Array(20).fill(7));
    const k2 = topicKey(1, new Uint8Array(32).fill(9));
    root.transactionSync(() => {
      for (const b of blocks) appendBlocks(db, k1, [b]);
      appendBlocks(db, k2, blocks);
      // A repeat of the last block is skipped.
      expect(appendBlocks(db, k2, [blocks.at(-1)!])).toBe(0);
    });
    const shards = (k: Buffer): [string, string][] => [...db.getRange({ start: k, end: prefixEnd(k) })].map(({ key, value }) => [key.subarray(k.length).toString("hex"), value.toString("hex")]);
    expect(shards(k1).length).toBeGreaterThan(2);
    expect(shards(k1)).toEqual(shards(k2));
    // Closed shards: at the byte bound, overshooting it by one run at most.
    for (const [end, v] of shards(k1).slice(0, -1)) {
      expect(v.length / 2).toBeGreaterThanOrEqual(LOG_INDEX_SHARD_BYTES);
      expect(v.length / 2).toBeLessThan(LOG_INDEX_SHARD_BYTES + 12);
      expect(end).not.toBe("ffffffffffffffff");
    }
    const max = blocks.at(-1)!;
    for (let t = 0; t < 100; t++) {
      const from = Math.floor(r() * max);
      const to = from + Math.floor(r() * (max - from + 10));
      const marks = new Uint8Array(to - from + 1);
      markKeyBlocks(db, k1, from, to, marks);
      const got = [...marks.keys()].filter((i) => marks[i] === 1).map((i) => from + i);
      expect(got).toEqual(blocks.filter((b) => b >= from && b <= to));
    }
    // Unwinding every block (last first) leaves nothing; half way, the rest is intact.
    root.transactionSync(() => {
      for (let i = blocks.length - 1; i >= 2000; i--) removeLastBlock(db, k1, blocks[i]!);
      // Not its last block: nothing happens.
      removeLastBlock(db, k1, blocks[10]!);
    });
    const marks = new Uint8Array(max + 1);
    markKeyBlocks(db, k1, 0, max, marks);
    expect([...marks.keys()].filter((i) => marks[i] === 1)).toEqual(blocks.slice(0, 2000));
    // Appending the same blocks again gives the same shards as the batch-built key.
    root.transactionSync(() => appendBlocks(db, k1, blocks.slice(2000)));
    expect(shards(k1)).toEqual(shards(k2));
    root.transactionSync(() => {
      for (let i = blocks.length - 1; i >= 0; i--) removeLastBlock(db, k1, blocks[i]!);
    });
    expect(shards(k1)).toEqual([]);
  });

  it("candidate blocks: OR within a criterion, AND across criteria, as brute force", () => {
    const { root, db } = tempDb();
    const r = seededRandom(4);
    const keys = Array.from({ length: 8 }, (_, i) => (i < 4 ? addressKey(new Uint8Array(20).fill(i + 1)) : topicKey(i % 4, new Uint8Array(32).fill(i + 1))));
    const sets = keys.map(() => randomBlocks(r, 200, 12));
    root.transactionSync(() => keys.forEach((k, i) => appendBlocks(db, k, sets[i]!)));
    for (let t = 0; t < 200; t++) {
      const groups: number[][] = [];
      const ng = 1 + Math.floor(r() * 3);
      for (let g = 0; g < ng; g++) groups.push(keys.map((_, i) => i).filter(() => r() < 0.35).concat([Math.floor(r() * keys.length)]));
      const from = Math.floor(r() * 1500);
      const to = from + Math.floor(r() * 1500);
      const want: number[] = [];
      for (let n = from; n <= to; n++) if (groups.every((g) => g.some((i) => sets[i]!.includes(n)))) want.push(n);
      expect(candidateBlocks(db, groups.map((g) => g.map((i) => keys[i]!)), from, to)).toEqual(want);
    }
  });

  it("prunes exactly the blocks below the floor", () => {
    const { root, db } = tempDb();
    const r = seededRandom(5);
    const blocks = randomBlocks(r, 3000, 200);
    const k = addressKey(new Uint8Array(20).fill(3));
    root.transactionSync(() => appendBlocks(db, k, blocks));
    const floor = blocks[1700]! + 1;
    root.transactionSync(() => pruneLogIndexBelow(db, floor));
    const max = blocks.at(-1)!;
    const marks = new Uint8Array(max + 1);
    markKeyBlocks(db, k, 0, max, marks);
    expect([...marks.keys()].filter((i) => marks[i] === 1)).toEqual(blocks.filter((b) => b >= floor));
    // The next block still appends after the pruned ones.
    root.transactionSync(() => appendBlocks(db, k, [max + 5]));
    const m2 = new Uint8Array(max + 6);
    markKeyBlocks(db, k, 0, max + 5, m2);
    expect([...m2.keys()].filter((i) => m2[i] === 1)).toEqual([...blocks.filter((b) => b >= floor), max + 5]);
  });
});
