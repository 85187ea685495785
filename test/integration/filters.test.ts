/**
 * Polling filters on a sealed devnet chain, through the method table: block filters report each
 * new canonical block once; log filters report the logs eth_getLogs finds in the new blocks,
 * removed logs (oldest block first) when blocks leave the chain, and — with `toBlock: "pending"`
 * — pre-confirmed logs once, not again when their block becomes canonical; pending-transaction
 * filters report mempool and pre-confirmed transactions once each; eth_getFilterLogs is the
 * filter's eth_getLogs; filters expire after five minutes without a poll; geth's errors.
 */
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Chain } from "../../src/blockchain/chain.js";
import type { RpcLog } from "../../src/chain/json/index.js";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";
import { FILTER_MAX_PENDING_TXS, FILTER_TIMEOUT_MS } from "../../src/rpc/constants.js";
import type { PendingSnapshot, PendingTx } from "../../src/flashblocks/pendingSnapshot.js";
import type { PendingSource } from "../../src/flashblocks/pendingView.js";
import { FilterRegistry } from "../../src/rpc/filters.js";
import { rpcFilters, rpcFiltersExpiredTotal } from "../../src/rpc/metrics.js";
import { filterMethods } from "../../src/rpc/methods/filters.js";
import { logMethods } from "../../src/rpc/methods/logs.js";
import type { MethodTable } from "../../src/rpc/types.js";
import type { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import type { TxPool } from "../../src/txpool/txpool.js";
import { to0x } from "../../src/util/bytes.js";
import { keccak256 } from "../../src/util/keccak.js";
import { buildWorkload } from "../../bench/workload/workload.js";
import { callTable, callTableError } from "../helpers/methodTable.js";
import { devBackend, openSealingDevnet, type SealingDevnet } from "../helpers/devChain.js";
import { tempDirs } from "../helpers/tempDirs.js";

const silent = pino({ level: "silent" });
const tmp = tempDirs("basalt-filters-");
const hex = (n: bigint): string => `0x${n.toString(16)}`;

/** A pending source the test drives: `emit` hands listeners a snapshot and makes it current. */
class TestPending implements PendingSource {
  snapshot: PendingSnapshot | undefined;
  private readonly listeners: ((s: PendingSnapshot) => void)[] = [];
  current(): PendingSnapshot | undefined {
    return this.snapshot;
  }
  onSnapshot(l: (s: PendingSnapshot) => void): () => void {
    this.listeners.push(l);
    return () => this.listeners.splice(this.listeners.indexOf(l), 1);
  }
  emit(s: PendingSnapshot | undefined): void {
    this.snapshot = s;
    if (s !== undefined) for (const l of this.listeners) l(s);
  }
}

/** A snapshot of one pending block `number` whose transactions are `txs` (the last `newTxCount` just added). */
function snapshotOf(number: bigint, txs: PendingTx[], newTxCount = txs.length): PendingSnapshot {
  const hash = "0x" + "ee".repeat(32);
  return {
    version: 4,
    anchor: { number: Number(number) - 1, hash: "0x" + "dd".repeat(32) },
    blocks: [{ number: Number(number), hash, parentHash: "0x" + "dd".repeat(32), timestamp: 0, index: 1, payloadId: "0x" + "00".repeat(8), headerRlp: new Uint8Array(), blockJson: "{}", blockJsonFull: "{}", receiptsJson: "[]", txs, newTxCount }],
    state: { accounts: [], storage: [], code: [], cleared: [] },
    flashblock: { block: Number(number), index: 1 },
    receivedAt: 0,
  } as unknown as PendingSnapshot;
}

/** A pre-confirmed transaction with `logs`. */
function pendingTx(hash: string, logs: RpcLog[], type = "0x2"): PendingTx {
  return { hash, from: "0x" + "11".repeat(20), to: null, txJson: JSON.stringify({ hash, type }), receiptJson: "{}", logs, raw: new Uint8Array([2]) };
}

describe("polling filters", () => {
  let dev: SealingDevnet;
  let chain: Chain;
  let seq: OpDevSequencer;
  let pool: TxPool;
  let pending: TestPending;
  let clock = 0;
  let filters: FilterRegistry;
  let m: MethodTable;
  let workload: ReturnType<typeof buildWorkload>;
  let nextRound = 0;

  /** Seals the next workload round (setup rounds, then blocks) into one block. */
  async function sealRound(): Promise<void> {
    const rounds = [...workload.setup, ...workload.blocks];
    for (const raw of rounds[nextRound++]!) await pool.addRaw(raw);
    await seq.sealOne();
  }
  const logsOf = async (from: bigint, to: bigint, criteria: Record<string, unknown>): Promise<RpcLog[]> =>
    (await callTable(m, "eth_getLogs", [{ ...criteria, fromBlock: hex(from), toBlock: hex(to) }])) as RpcLog[];

  beforeAll(async () => {
    dev = await openSealingDevnet(tmp());
    ({ chain, pool, seq } = dev);
    workload = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: 16, txsPerBlock: 10 });
    for (let i = 0; i < workload.setup.length; i++) await sealRound();
  }, 60_000);

  beforeEach(() => {
    filters?.close();
    pending = new TestPending();
    filters = new FilterRegistry({ chain, pending, pool, maxFilters: 8, now: () => clock, logger: silent });
    const backend = devBackend(dev, { pending });
    m = { ...filterMethods(backend, filters), ...logMethods(backend) };
  });

  afterAll(async () => {
    filters?.close();
    await dev?.close();
  });

  it("a block filter reports each new canonical block once, in order", async () => {
    const id = (await callTable(m, "eth_newBlockFilter", [])) as string;
    expect(id).toMatch(/^0x[0-9a-f]{1,32}$/);
    expect(await callTable(m, "eth_getFilterChanges", [id])).toEqual([]);
    const before = chain.head.header.number;
    await sealRound();
    await sealRound();
    const hashes = [to0x(chain.getBlockByNumber(before + 1n)!.hash()), to0x(chain.getBlockByNumber(before + 2n)!.hash())];
    expect(await callTable(m, "eth_getFilterChanges", [id])).toEqual(hashes);
    expect(await callTable(m, "eth_getFilterChanges", [id])).toEqual([]);
    // Not a log filter: geth's "filter not found".
    expect(await callTableError(m, "eth_getFilterLogs", [id])).toEqual({ code: -32000, message: "filter not found" });
  });

  it("a log filter reports what eth_getLogs finds in the new blocks; eth_getFilterLogs is its eth_getLogs", async () => {
    const token = to0x(workload.tokens[0]!);
    const criteria = { address: token };
    const all = (await callTable(m, "eth_newFilter", [{}])) as string;
    const tokenOnly = (await callTable(m, "eth_newFilter", [criteria])) as string;
    const from = chain.head.header.number + 1n;
    await sealRound();
    await sealRound();
    const to = chain.head.header.number;
    const expected = await logsOf(from, to, criteria);
    expect(expected.length).toBeGreaterThan(0);
    expect(await callTable(m, "eth_getFilterChanges", [tokenOnly])).toEqual(expected);
    expect(await callTable(m, "eth_getFilterChanges", [tokenOnly])).toEqual([]);
    const everything = await logsOf(from, to, {});
    expect(everything.length).toBeGreaterThan(expected.length);
    expect(await callTable(m, "eth_getFilterChanges", [all])).toEqual(everything);
    // eth_getFilterLogs: the criteria as an eth_getLogs query (fromBlock/toBlock absent: the head).
    expect(await callTable(m, "eth_getFilterLogs", [tokenOnly])).toEqual(await callTable(m, "eth_getLogs", [criteria]));
    const ranged = (await callTable(m, "eth_newFilter", [{ ...criteria, fromBlock: hex(from), toBlock: hex(to) }])) as string;
    expect(await callTable(m, "eth_getFilterLogs", [ranged])).toEqual(expected);
    // A numeric toBlock bounds the changes: nothing past it.
    await sealRound();
    expect(await callTable(m, "eth_getFilterChanges", [ranged])).toEqual([]);
    expect(((await callTable(m, "eth_getFilterChanges", [tokenOnly])) as RpcLog[]).length).toBeGreaterThan(0);
  });

  it("blocks that leave the chain: removed logs oldest first, then the new branch", async () => {
    const token = to0x(workload.tokens[0]!);
    const logs = (await callTable(m, "eth_newFilter", [{ address: token }])) as string;
    const blocks = (await callTable(m, "eth_newBlockFilter", [])) as string;
    const base = chain.head;
    await sealRound();
    await sealRound();
    const oldBranch = [chain.getBlockByNumber(base.header.number + 1n)!, chain.getBlockByNumber(base.header.number + 2n)!];
    const oldLogs = await logsOf(base.header.number + 1n, base.header.number + 2n, { address: token });
    expect(oldLogs.length).toBeGreaterThan(0);
    // The old branch leaves the chain before the filters are polled; the new one holds part of
    // the old first block's transactions (so it differs from it, and has token logs).
    await chain.setHead(base.hash());
    const rounds = [...workload.setup, ...workload.blocks];
    for (const raw of rounds[nextRound - 2]!.slice(0, 4)) await pool.addRaw(raw).catch(() => undefined);
    await seq.sealOne();
    const newBlock = chain.head;
    expect(newBlock.header.number).toBe(base.header.number + 1n);
    expect(to0x(newBlock.hash())).not.toBe(to0x(oldBranch[0]!.hash()));
    const newLogs = await logsOf(newBlock.header.number, newBlock.header.number, { address: token });
    expect(newLogs.length).toBeGreaterThan(0);
    // The filter never reported the old branch: it starts from where it was (the base), nothing removed.
    expect(await callTable(m, "eth_getFilterChanges", [logs])).toEqual(newLogs);
    expect(await callTable(m, "eth_getFilterChanges", [blocks])).toEqual([to0x(newBlock.hash())]);
    // Now the filter has reported the new block; move the chain back to the old branch.
    await chain.setHead(oldBranch[1]!.hash());
    const changes = (await callTable(m, "eth_getFilterChanges", [logs])) as RpcLog[];
    const removed = newLogs.map((l) => ({ ...l, removed: true }));
    expect(changes).toEqual([...removed, ...oldLogs]);
    expect(await callTable(m, "eth_getFilterChanges", [blocks])).toEqual(oldBranch.map((b) => to0x(b.hash())));
  });

  it("toBlock pending: pre-confirmed logs once, not again when their block becomes canonical", async () => {
    const parent = chain.head;
    await sealRound();
    const sealed = chain.head;
    const canonicalLogs = await logsOf(sealed.header.number, sealed.header.number, {});
    expect(canonicalLogs.length).toBeGreaterThan(1);
    // Back to the parent: the sealed block is what the pre-confirmation stream announces.
    await chain.setHead(parent.hash());
    const id = (await callTable(m, "eth_newFilter", [{ toBlock: "pending" }])) as string;
    const onlyPending = (await callTable(m, "eth_newFilter", [{ fromBlock: "pending", toBlock: "pending" }])) as string;
    const plain = (await callTable(m, "eth_newFilter", [{}])) as string;
    // The first pre-confirmed transaction's logs (as the stream renders them: same tx, same log index).
    const firstTx = canonicalLogs[0]!.transactionHash;
    const preLogs = canonicalLogs.filter((l) => l.transactionHash === firstTx);
    pending.emit(snapshotOf(sealed.header.number, [pendingTx(firstTx, preLogs)]));
    expect(await callTable(m, "eth_getFilterChanges", [id])).toEqual(preLogs);
    expect(await callTable(m, "eth_getFilterChanges", [id])).toEqual([]);
    expect(await callTable(m, "eth_getFilterChanges", [onlyPending])).toEqual(preLogs);
    expect(await callTable(m, "eth_getFilterChanges", [plain])).toEqual([]);
    // The block becomes canonical: only the logs not already reported as pre-confirmed.
    await chain.setHead(sealed.hash());
    pending.emit(undefined);
    const rest = canonicalLogs.filter((l) => l.transactionHash !== firstTx);
    expect(rest.length).toBeGreaterThan(0);
    expect(await callTable(m, "eth_getFilterChanges", [id])).toEqual(rest);
    expect(await callTable(m, "eth_getFilterChanges", [onlyPending])).toEqual([]);
    expect(await callTable(m, "eth_getFilterChanges", [plain])).toEqual(canonicalLogs);
  });

  it("a pending-transaction filter reports mempool and pre-confirmed transactions once each, hashes or objects", async () => {
    const hashes = (await callTable(m, "eth_newPendingTransactionFilter", [])) as string;
    const full = (await callTable(m, "eth_newPendingTransactionFilter", [true])) as string;
    const rounds = [...workload.setup, ...workload.blocks];
    const round = rounds[nextRound]!;
    for (const raw of round.slice(0, 3)) await pool.addRaw(raw);
    const sent = round.slice(0, 3).map((raw) => to0x(keccak256(raw)));
    expect(await callTable(m, "eth_getFilterChanges", [hashes])).toEqual(sent);
    expect(((await callTable(m, "eth_getFilterChanges", [full])) as { hash: string; blockHash: unknown }[]).map((t) => [t.hash, t.blockHash])).toEqual(sent.map((h) => [h, null]));
    // Pre-confirmations: the deposit is not a pending transaction; a transaction the mempool announced is not repeated.
    const other = "0x" + "ab".repeat(32);
    pending.emit(snapshotOf(chain.head.header.number + 1n, [pendingTx("0x" + "cd".repeat(32), [], "0x7e"), pendingTx(sent[0]!, []), pendingTx(other, [])]));
    expect(await callTable(m, "eth_getFilterChanges", [hashes])).toEqual([other]);
    expect(await callTable(m, "eth_getFilterChanges", [full])).toEqual([{ hash: other, type: "0x2" }]);
    expect(await callTable(m, "eth_getFilterChanges", [hashes])).toEqual([]);
    await seq.sealOne();
    nextRound++;
  });

  it("a pending-transaction filter keeps the newest FILTER_MAX_PENDING_TXS", async () => {
    const id = (await callTable(m, "eth_newPendingTransactionFilter", [])) as string;
    const txs = Array.from({ length: FILTER_MAX_PENDING_TXS + 5 }, (_, i) => pendingTx(to0x(keccak256(new Uint8Array([9, i >> 8, i & 255]))), []));
    pending.emit(snapshotOf(chain.head.header.number + 1n, txs));
    const got = (await callTable(m, "eth_getFilterChanges", [id])) as string[];
    expect(got).toEqual(txs.slice(5).map((t) => t.hash));
  });

  it("expires filters after five minutes without a poll; a poll keeps one alive", async () => {
    const kept = (await callTable(m, "eth_newBlockFilter", [])) as string;
    const idle = (await callTable(m, "eth_newFilter", [{}])) as string;
    const expiredBefore = (await rpcFiltersExpiredTotal.get()).values.reduce((n, v) => n + v.value, 0);
    clock += FILTER_TIMEOUT_MS - 1000;
    await callTable(m, "eth_getFilterChanges", [kept]);
    clock += 2000;
    expect(filters.sweep()).toBe(1);
    expect(await callTableError(m, "eth_getFilterChanges", [idle])).toEqual({ code: -32000, message: "filter not found" });
    expect(await callTable(m, "eth_getFilterChanges", [kept])).toEqual([]);
    expect((await rpcFiltersExpiredTotal.get()).values.reduce((n, v) => n + v.value, 0)).toBe(expiredBefore + 1);
    expect(await callTable(m, "eth_uninstallFilter", [kept])).toBe(true);
    expect(await callTable(m, "eth_uninstallFilter", [kept])).toBe(false);
    expect(filters.count()).toBe(0);
  });

  it("bad input: geth's errors, a cap on installed filters", async () => {
    expect(await callTableError(m, "eth_getFilterChanges", ["0x1234"])).toEqual({ code: -32000, message: "filter not found" });
    expect((await callTableError(m, "eth_getFilterChanges", [5])).code).toBe(-32602);
    expect(await callTable(m, "eth_uninstallFilter", ["0x1234"])).toBe(false);
    expect((await callTableError(m, "eth_newFilter", [{ fromBlock: "0x5", toBlock: "0x4" }])).message).toBe("invalid block range params");
    expect((await callTableError(m, "eth_newFilter", [{ fromBlock: "safe" }])).message).toBe("invalid block range params");
    expect((await callTableError(m, "eth_newFilter", [{ topics: [null, null, null, null, null] }])).message).toContain("too many topics");
    const many = (n: number, bytes: number): string[] => Array.from({ length: n }, (_, i) => "0x" + i.toString(16).padStart(bytes * 2, "0"));
    expect(await callTableError(m, "eth_newFilter", [{ address: many(1001, 20) }])).toEqual({ code: -32000, message: "exceed max addresses" });
    expect(await callTableError(m, "eth_getLogs", [{ topics: [many(1001, 32)] }])).toEqual({ code: -32000, message: "exceed max subtopics" });
    expect(await callTable(m, "eth_newFilter", [{ address: many(1000, 20), topics: [many(1000, 32)] }])).toMatch(/^0x/);
    expect((await callTableError(m, "eth_newFilter", [{ blockHash: "0x" + "00".repeat(32), fromBlock: "0x1" }])).code).toBe(-32602);
    expect((await callTableError(m, "eth_newPendingTransactionFilter", ["yes"])).code).toBe(-32602);
    for (let i = 0; i < 7; i++) await callTable(m, "eth_newBlockFilter", []);
    const full = await callTableError(m, "eth_newBlockFilter", []);
    expect(full.code).toBe(-32005);
    expect(full.message).toContain("too many filters");
    expect((await rpcFilters.get()).values.find((v) => v.labels.kind === "block")?.value).toBe(7);
    expect((await rpcFilters.get()).values.find((v) => v.labels.kind === "logs")?.value).toBe(1);
  });
});
