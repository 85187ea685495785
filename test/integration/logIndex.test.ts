/**
 * The log index on real datadirs: eth_getLogs through the index gives byte for byte the logs of
 * the scan and of the block-by-block reference (random filters over a generated log-heavy
 * chain, and over a partly indexed one); `basalt db reindex-logs` rebuilds the same bytes the
 * imports wrote, resumes after an interruption and is required before the node opens again; a
 * datadir without an index is indexed from its next block; a reorg removes the unwound blocks'
 * entries (the index then equals a rebuild); eth_getLogs' limits answer with reth's errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import type { RpcLog } from "../../src/chain/json/index.js";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";
import { collectBlockLogs, logMethods, parseLogFilter, rangeLogs, type LogFilter } from "../../src/rpc/methods/logs.js";
import { ChainStore, MetaKey } from "../../src/storage/store.js";
import { reindexLogs } from "../../src/storage/logReindex.js";
import { blockLogKeys, candidateBlocks } from "../../src/storage/logIndex.js";
import { to0x } from "../../src/util/bytes.js";
import { buildWorkload } from "../../bench/workload/workload.js";
import { TOPICS, writeLogChain, type LogChain } from "../../bench/logChain.js";
import { callTable, callTableError } from "../helpers/methodTable.js";
import { devBackend, openSealingDevnet } from "../helpers/devChain.js";
import { seededRandom } from "../helpers/random.js";
import { tempDirs } from "../helpers/tempDirs.js";

const tmp = tempDirs("basalt-logindex-it-");
const hex = (b: Uint8Array): string => "0x" + Buffer.from(b).toString("hex");
const BLOCKS = 120;

/** The logs of [from, to] as the code before the index found them: every block decoded, its bloom checked. */
function reference(chain: Chain, f: LogFilter, from: bigint, to: bigint): RpcLog[] {
  const out: RpcLog[] = [];
  for (let n = from; n <= to; n++) collectBlockLogs(chain, chain.getBlockByNumber(n)!, f, false, out);
  return out;
}

function viaPath(chain: Chain, f: LogFilter, from: bigint, to: bigint, useIndex: boolean): RpcLog[] {
  const out: RpcLog[] = [];
  rangeLogs(chain, f, from, to, out, { useIndex, maxLogs: Infinity });
  return out;
}

/** A random filter object over the chain's addresses and topics (some absent from it). */
function randomCriteria(r: () => number, c: LogChain): Record<string, unknown> {
  const one = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  const word = (a: Uint8Array): string => "0x" + "00".repeat(12) + Buffer.from(a).toString("hex");
  const o: Record<string, unknown> = {};
  const addrs: string[] = [];
  const na = r() < 0.4 ? 0 : 1 + Math.floor(r() * 3);
  for (let i = 0; i < na; i++) addrs.push(hex(r() < 0.5 ? one(c.tokens) : r() < 0.9 ? one(c.pools) : new Uint8Array(20).fill(0xab)));
  if (na > 0) o.address = na === 1 && r() < 0.5 ? addrs[0] : addrs;
  const positions = Math.floor(r() * 4);
  if (positions > 0 || na === 0) {
    const topics: unknown[] = [];
    for (let p = 0; p < Math.max(positions, 1); p++) {
      const pool: string[] = p === 0 ? Object.values(TOPICS).map(hex) : [...c.users.slice(0, 8), ...c.pools.slice(0, 4)].map(word);
      const k = r();
      if (k < 0.3) topics.push(null);
      else if (k < 0.7) topics.push(one(pool));
      else topics.push([one(pool), one(pool), ...(r() < 0.3 ? [null] : [])]);
    }
    o.topics = topics;
  }
  return o;
}

/** Every entry of the log index, as hex. */
function dump(store: ChainStore): string[] {
  return [...store.logIndex.getRange({})].map(({ key, value }) => `${key.toString("hex")}=${value.toString("hex")}`);
}

describe("eth_getLogs through the log index on a generated chain", () => {
  let dir: string;
  let c: LogChain;
  let chain: Chain;

  beforeAll(async () => {
    dir = tmp();
    c = await writeLogChain(dir, { blocks: BLOCKS, txsPerBlock: 20, tokens: 40, pools: 8, users: 30, seed: 11 });
    chain = Chain.open(dir, { archive: true });
  }, 120_000);

  afterAll(async () => {
    await chain?.close();
  });

  it("gives the scan's and the reference's logs, byte for byte, for random filters and ranges", () => {
    const r = seededRandom(12);
    let nonEmpty = 0;
    expect(chain.store.logIndexFrom()).toBe(0n);
    for (let t = 0; t < 100; t++) {
      const f = parseLogFilter(randomCriteria(r, c), 0);
      const from = BigInt(Math.floor(r() * BLOCKS));
      const to = from + BigInt(Math.floor(r() * (BLOCKS - Number(from) + 1)));
      const want = JSON.stringify(reference(chain, f, from, to));
      expect(JSON.stringify(viaPath(chain, f, from, to, true))).toBe(want);
      expect(JSON.stringify(viaPath(chain, f, from, to, false))).toBe(want);
      if (want !== "[]") nonEmpty++;
    }
    // The random filters did find logs (the comparison is not of empty answers only).
    expect(nonEmpty).toBeGreaterThan(50);
  });

  it("a partly indexed datadir: blocks below the index's first are scanned, the answer is the same", () => {
    const r = seededRandom(13);
    chain.store.putMetaSync(MetaKey.logIndexFrom, "60");
    try {
      for (let t = 0; t < 60; t++) {
        const f = parseLogFilter(randomCriteria(r, c), 0);
        expect(JSON.stringify(viaPath(chain, f, 30n, 100n, true))).toBe(JSON.stringify(reference(chain, f, 30n, 100n)));
      }
    } finally {
      chain.store.putMetaSync(MetaKey.logIndexFrom, "0");
    }
  });

  it("eth_getLogs' limits: reth's errors for a range over the cap and an answer over the cap; 0 lifts them", async () => {
    const backend = (settings: Record<string, number>) => logMethods(devBackend({ chain, pool: undefined as never }, { settings }));
    const m = backend({ maxBlocksPerFilter: 10, maxLogsPerResponse: 5 });
    const transfer = hex(TOPICS.transfer);
    // 11 blocks beyond the first: over; 10: within (reth caps to - from).
    expect(await callTableError(m, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0xc", topics: [transfer] }])).toEqual({ code: -32602, message: "query exceeds max block range 10" });
    const within = await callTableError(m, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "0xb", topics: [transfer] }]);
    // Block 1 alone has more than 5 Transfer logs: the retry range is that block.
    expect(within).toEqual({ code: -32602, message: "query exceeds max results 5, retry with the range 1-1" });
    // One block (blockHash or from = to): every log, whatever the cap.
    const one = (await callTable(m, "eth_getLogs", [{ fromBlock: "0x2", toBlock: "0x2", topics: [transfer] }])) as RpcLog[];
    expect(one.length).toBeGreaterThan(5);
    const byHash = (await callTable(m, "eth_getLogs", [{ blockHash: to0x(chain.getCanonicalHash(2n)!), topics: [transfer] }])) as RpcLog[];
    expect(byHash).toEqual(one);
    // The retry range ends before the block that crossed the cap.
    const perBlock = one.length;
    const m2 = backend({ maxLogsPerResponse: perBlock + 1 });
    const err = await callTableError(m2, "eth_getLogs", [{ fromBlock: "0x2", toBlock: "0x40", topics: [transfer] }]);
    expect(err.message).toMatch(new RegExp(`^query exceeds max results ${perBlock + 1}, retry with the range 2-(\\d+)$`));
    const retryTo = BigInt(/-(\d+)$/.exec(err.message)![1]!);
    expect(retryTo).toBeGreaterThanOrEqual(2n);
    expect(((await callTable(m2, "eth_getLogs", [{ fromBlock: "0x2", toBlock: "0x" + retryTo.toString(16), topics: [transfer] }])) as RpcLog[]).length).toBeLessThanOrEqual(perBlock + 1);
    // 0 = no limit.
    const unlimited = backend({ maxBlocksPerFilter: 0, maxLogsPerResponse: 0 });
    const all = (await callTable(unlimited, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", topics: [transfer] }])) as RpcLog[];
    expect(all.length).toBeGreaterThan(BLOCKS * 5);
    // The existing checks stay.
    expect(await callTableError(m, "eth_getLogs", [{ topics: [null, null, null, null, null] }])).toEqual({ code: -32602, message: "invalid argument 0: too many topics (max 4)" });
    expect(await callTableError(m, "eth_getLogs", [{ fromBlock: "0x5", toBlock: "0x2" }])).toEqual({ code: -32602, message: "invalid block range params" });
  });
});

describe("basalt db reindex-logs and datadirs without an index", () => {
  it("rebuilds the bytes the imports wrote; resumes after an interruption, refused by the node meanwhile", async () => {
    const dir = tmp();
    await writeLogChain(dir, { blocks: 60, txsPerBlock: 15, tokens: 20, pools: 5, users: 20, seed: 21 });
    let store = ChainStore.open(dir);
    const written = dump(store);
    expect(written.length).toBeGreaterThan(50);
    await store.close();
    let batches = 0;
    const first = await reindexLogs(dir, { batchBlocks: 7, stopRequested: () => batches++ >= 3 });
    expect(first.outcome).toBe("stopped");
    expect(() => Chain.open(dir)).toThrow(expect.objectContaining({ code: "STORAGE_LOG_REINDEX_UNFINISHED" }));
    expect(() => Chain.open(dir)).toThrow(/basalt db reindex-logs --datadir/);
    const second = await reindexLogs(dir, { batchBlocks: 7 });
    expect(second).toMatchObject({ outcome: "done", resumed: true });
    expect(second.blocks).toBe(61 - 21);
    store = ChainStore.open(dir);
    expect(dump(store)).toEqual(written);
    expect(store.logIndexFrom()).toBe(0n);
    await store.close();
  }, 120_000);

  it("a datadir from before the index: indexed from its next block on, older blocks scanned, reindex covers them", async () => {
    const dir = tmp();
    const c = await writeLogChain(dir, { blocks: 40, txsPerBlock: 15, tokens: 20, pools: 5, users: 20, seed: 31 });
    // What an older basalt left: no index, no `logIndexFrom`.
    const old = ChainStore.openForLogReindex(dir);
    await old.logIndex.clearAsync();
    await old.meta.remove(MetaKey.logIndexFrom);
    await old.close();
    let chain = Chain.open(dir, { archive: true });
    try {
      expect(chain.store.logIndexFrom()).toBe(41n);
      expect(dump(chain.store)).toEqual([]);
      const f = parseLogFilter({ address: c.tokens.slice(0, 3).map(hex), topics: [hex(TOPICS.transfer)] }, 0);
      const want = JSON.stringify(reference(chain, f, 0n, 40n));
      expect(want).not.toBe("[]");
      expect(JSON.stringify(viaPath(chain, f, 0n, 40n, true))).toBe(want);
    } finally {
      await chain.close();
    }
    expect((await reindexLogs(dir)).outcome).toBe("done");
    chain = Chain.open(dir, { archive: true });
    try {
      expect(chain.store.logIndexFrom()).toBe(0n);
      expect(dump(chain.store).length).toBeGreaterThan(50);
    } finally {
      await chain.close();
    }
  }, 120_000);
});

describe("the log index over reorgs (sealed devnet blocks)", () => {
  it("removes an unwound block's entries; after the new branch the index equals a rebuild and the scan", async () => {
    const dir = tmp();
    const dev = await openSealingDevnet(dir);
    const { chain, pool, seq } = dev;
    const workload = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: 8, txsPerBlock: 10 });
    const rounds = [...workload.setup, ...workload.blocks];
    let next = 0;
    const seal = async (): Promise<void> => {
      for (const raw of rounds[next++]!) await pool.addRaw(raw);
      await seq.sealOne();
    };
    let closed = false;
    try {
      for (let i = 0; i < workload.setup.length + 3; i++) await seal();
      const base = chain.head;
      await seal();
      await seal();
      const unwound = [chain.getBlockByNumber(base.header.number + 1n)!, chain.getBlockByNumber(base.header.number + 2n)!];
      const keys = unwound.flatMap((b) => blockLogKeys(chain.getReceipts(b.hash())!));
      expect(keys.length).toBeGreaterThan(0);
      const top = Number(base.header.number) + 2;
      expect(candidateBlocks(chain.store.logIndex, [keys], top - 1, top).length).toBe(2);
      await chain.setHead(base.hash());
      // Each key alone: no block above the base any more.
      for (const k of keys) expect(candidateBlocks(chain.store.logIndex, [[k]], top - 1, top)).toEqual([]);
      // A new branch of part of the old first block's transactions, then more blocks.
      for (const raw of rounds[next - 2]!.slice(0, 4)) await pool.addRaw(raw).catch(() => undefined);
      await seq.sealOne();
      await seal();
      const head = chain.head.header.number;
      const token = hex(workload.tokens[0]!);
      for (const criteria of [{ address: token }, { topics: [hex(TOPICS.transfer)] }, { address: workload.tokens.map(hex), topics: [null, null] }]) {
        const f = parseLogFilter(criteria, 0);
        expect(JSON.stringify(viaPath(chain, f, 0n, head, true))).toBe(JSON.stringify(reference(chain, f, 0n, head)));
      }
      const live = dump(chain.store);
      await dev.close();
      closed = true;
      expect((await reindexLogs(dir)).outcome).toBe("done");
      const store = ChainStore.open(dir);
      try {
        expect(dump(store)).toEqual(live);
      } finally {
        await store.close();
      }
    } finally {
      if (!closed) await dev.close();
    }
  }, 180_000);
});


