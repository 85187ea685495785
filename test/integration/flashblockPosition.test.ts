/**
 * Reads "as of a flashblock" (`{blockNumber, flashblockIndex}` block parameters, base/base
 * issue #508) and the node's flashblock height (base_flashblockHeight, eth_subscribe
 * "flashblockHeight"), over a real flashblock stream: a producer devnet seals blocks, their
 * frames (one transaction per flashblock) are executed by the flashblocks consumer pipeline on a
 * second chain, published through the shared buffer and read back by the RPC methods — calls
 * through the same pending call target the execution workers use.
 */
import type { Block } from "@ethereumjs/block";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { encodeFlashblock, type FlashblocksPayloadV1 } from "../../src/flashblocks/codec.js";
import { FlashblocksIngest } from "../../src/flashblocks/ingest.js";
import { FlashblockPositionError, FlashblockPositionErrorCode } from "../../src/flashblocks/errors.js";
import { BasaltError } from "../../src/util/errors.js";
import { IngestStats } from "../../src/flashblocks/ingestStats.js";
import { allocatePendingBuffer, PendingBufferReader, PendingBufferWriter } from "../../src/flashblocks/pendingBuffer.js";
import type { PendingSnapshot } from "../../src/flashblocks/pendingSnapshot.js";
import { isAheadOfHead, type PendingSource } from "../../src/flashblocks/pendingView.js";
import { flashblocksOfBlock } from "../../src/flashblocks/replay.js";
import type { RpcBackend } from "../../src/rpc/backend.js";
import { toJsonRpcError } from "../../src/rpc/errors.js";
import { InlineCallService } from "../../src/rpc/inlineCalls.js";
import { blockMethods } from "../../src/rpc/methods/blocks.js";
import { callMethods } from "../../src/rpc/methods/call.js";
import { flashblockHeightMethods } from "../../src/rpc/methods/flashblockHeight.js";
import { rpcFlashblockPositionReadsTotal } from "../../src/rpc/methods/pending.js";
import { stateMethods } from "../../src/rpc/methods/state.js";
import { SubscriptionHub, type SubscriptionConnection } from "../../src/rpc/subscriptions.js";
import { RawJson, type MethodTable, type RpcContext } from "../../src/rpc/types.js";
import { logMethods } from "../../src/rpc/methods/logs.js";
import { createAddress } from "../../src/chain/json/receipt.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";

const silent = pino({ level: "silent" });
const CTX: RpcContext = { transport: "http" };
const accounts = devAccounts();
const PAYLOAD_ID = Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]);
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), "basalt-fbpos-"));
  dirs.push(d);
  return d;
};
const addr = (i: number): string => accounts[i]!.address.toLowerCase();
const at = (n: number, k: number | string): { blockNumber: string; flashblockIndex: string } => ({
  blockNumber: "0x" + n.toString(16),
  flashblockIndex: typeof k === "string" ? k : "0x" + k.toString(16),
});
/** Runtime of the log contract: SSTORE(0, NUMBER); LOG1(mem[0..32] = 42, topic 1); RETURN(NUMBER, TIMESTAMP). */
const RUNTIME = "435f55" + "602a5f52" + "600160205fa1" + "435f524260205260405ff3";
/** Its init code: CODECOPY the runtime (after these 10 bytes) to memory 0 and return it. */
const INIT = ("0x" + "6018600a5f396018" + "5ff3" + RUNTIME) as `0x${string}`;
/** Init code returning BALANCE(address) as one word: eth_call of a creation returns it. */
const balanceProbe = (a: string): string => "0x73" + a.slice(2) + "31" + "5f52" + "60205ff3";

/** A block's flashblocks: index 0 = its deposits, then one frame per other transaction (only the last frame carries the sealed block's cumulative values). */
function framesOf(block: Block): FlashblocksPayloadV1[] {
  const frames = flashblocksOfBlock(block, 1, PAYLOAD_ID);
  return frames.map((f, i) => (i === frames.length - 1 ? f : { ...f, diff: { ...f.diff, receiptsRoot: new Uint8Array(32), logsBloom: new Uint8Array(256), gasUsed: 0n } }));
}

/** The worker's published snapshot as the RPC thread reads it: served only while ahead of the head. */
class BufferSource implements PendingSource {
  private readonly listeners = new Set<(s: PendingSnapshot) => void>();
  constructor(
    private readonly reader: PendingBufferReader,
    private readonly chain: Chain,
  ) {}
  current(): PendingSnapshot | undefined {
    const s = this.reader.read();
    return s !== undefined && isAheadOfHead(s, this.chain.head.header.number) ? s : undefined;
  }
  onSnapshot(listener: (s: PendingSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  /** What the service's watcher does at a new generation. */
  notify(): void {
    const s = this.current();
    if (s !== undefined) for (const l of this.listeners) l(s);
  }
}

describe("reads as of a flashblock ({blockNumber, flashblockIndex})", () => {
  let producer: Chain;
  let follower: Chain;
  let sealed: Block[];
  let ingest: FlashblocksIngest;
  let source: BufferSource;
  let m: MethodTable;
  let frameNo = 0;
  let contract: Uint8Array;

  const transfer = (from: number, nonce: bigint, to: number, value: bigint) =>
    createFeeMarket1559Tx(
      { chainId: producer.chainId, nonce, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 21_000n, to: accounts[to]!.address as `0x${string}`, value },
      { common: producer.commonAt(1n, producer.head.header.timestamp + 1n) },
    ).sign(hexToBytes(accounts[from]!.privateKey as `0x${string}`));

  async function feed(frames: FlashblocksPayloadV1[]): Promise<void> {
    for (const f of frames) ingest.onFrame(encodeFlashblock(f, { compress: false }) as string, ++frameNo);
    await ingest.drained();
    source.notify();
  }

  async function rpc(method: string, params: unknown[]): Promise<unknown> {
    const r = await m[method]!(params, CTX);
    return r instanceof RawJson ? JSON.parse(r.json) : JSON.parse(JSON.stringify(r ?? null));
  }
  async function rpcError(method: string, params: unknown[]): Promise<{ code: number; message: string; data?: unknown }> {
    try {
      await m[method]!(params, CTX);
    } catch (e) {
      return toJsonRpcError(e);
    }
    throw new Error(`${method} did not fail`);
  }
  const balanceAt = (n: number, i: number): bigint => producer.stateAt(sealed[n - 1]!.header).account(hexToBytes(accounts[i]!.address as `0x${string}`))!.balance;
  const genesisBalance = (i: number): bigint => producer.stateAt(producer.getBlockByNumber(0n)!.header).account(hexToBytes(accounts[i]!.address as `0x${string}`))?.balance ?? 0n;
  const outcomes = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (const v of (await rpcFlashblockPositionReadsTotal.get()).values) out[String(v.labels.outcome)] = (out[String(v.labels.outcome)] ?? 0) + v.value;
    return out;
  };

  beforeAll(async () => {
    const a = tmp();
    const b = tmp();
    await Chain.init(a, devnetGenesis(), { archive: true });
    await Chain.init(b, devnetGenesis(), { archive: true });
    producer = Chain.open(a, { logger: silent });
    follower = Chain.open(b, { logger: silent });
    const pool = new TxPool(producer);
    const seq = new OpDevSequencer(producer, pool, 0, silent);
    // Block 1: L1 info, then 0→5 1000 (flashblock 1), then 1→5 2000 (flashblock 2).
    await pool.addRaw(transfer(0, 0n, 5, 1000n).serialize());
    await pool.addRaw(transfer(1, 0n, 5, 2000n).serialize());
    await seq.sealOne();
    // Block 2: 0→7 3000 (flashblock 1), 2→5 4000 (flashblock 2).
    await pool.addRaw(transfer(0, 1n, 7, 3000n).serialize());
    await pool.addRaw(transfer(2, 0n, 5, 4000n).serialize());
    await seq.sealOne();
    // Block 3 deploys a contract that emits one log per call; block 4 calls it twice (flashblocks 1 and 2).
    const deploy = createFeeMarket1559Tx(
      { chainId: producer.chainId, nonce: 0n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 200_000n, data: hexToBytes(INIT) },
      { common: producer.commonAt(3n, producer.head.header.timestamp + 1n) },
    ).sign(hexToBytes(accounts[3]!.privateKey as `0x${string}`));
    await pool.addRaw(deploy.serialize());
    await seq.sealOne();
    contract = createAddress(hexToBytes(accounts[3]!.address as `0x${string}`), 0n);
    for (const nonce of [0n, 1n]) {
      const call = createFeeMarket1559Tx(
        { chainId: producer.chainId, nonce, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 100_000n, to: contract },
        { common: producer.commonAt(4n, producer.head.header.timestamp + 1n) },
      ).sign(hexToBytes(accounts[4]!.privateKey as `0x${string}`));
      await pool.addRaw(call.serialize());
    }
    await seq.sealOne();
    sealed = [1n, 2n, 3n, 4n].map((n) => producer.getBlockByNumber(n)!);
    expect(sealed.map((s) => s.transactions.length)).toEqual([3, 3, 2, 3]);
    const writer = new PendingBufferWriter(allocatePendingBuffer(4 * 1024 * 1024));
    const reader = new PendingBufferReader((writer as unknown as { ctl: Int32Array }).ctl.buffer as SharedArrayBuffer);
    ingest = new FlashblocksIngest(follower, writer, new IngestStats(), silent);
    source = new BufferSource(reader, follower);
    const backend: RpcBackend = {
      chain: follower,
      pool: new TxPool(follower),
      calls: new InlineCallService(follower, source),
      settings: { gasCap: 50_000_000n, clientVersion: "test" },
      pending: source,
      syncing: () => false,
    };
    m = { ...blockMethods(backend), ...stateMethods(backend), ...callMethods(backend), ...logMethods(backend), ...flashblockHeightMethods(backend) };
  }, 60_000);

  afterAll(async () => {
    await producer?.close();
    await follower?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("streams and reports the flashblock height; refuses a position not yet received with -32002 and the height", async () => {
    expect(await rpc("base_flashblockHeight", [])).toBeNull();
    const hub = new SubscriptionHub({ chain: follower, pending: source });
    const sent: string[] = [];
    const conn: SubscriptionConnection = { send: (t) => (sent.push(t), true) } as SubscriptionConnection;
    const sub = hub.methodsFor(conn);
    const ctx: RpcContext = { transport: "ws" };
    const id = (await sub.eth_subscribe!(["flashblockHeight"], ctx)) as string;
    hub.activate(conn, ctx);
    await expect(async () => sub.eth_subscribe!(["flashblockHeight", true], ctx)).rejects.toThrow();

    const err = await rpcError("eth_getBalance", [addr(5), at(1, 0)]);
    expect(err.code).toBe(-32002);
    expect(err.message).toBe("flashblock 1-0 not yet received (this node is at no pending block)");
    expect(err.data).toEqual({ blockNumber: "0x1", flashblockIndex: "0x0", height: null });

    const frames = framesOf(sealed[0]!);
    expect(frames.length).toBe(3);
    await feed(frames.slice(0, 2));
    expect(await rpc("base_flashblockHeight", [])).toEqual({ blockNumber: "0x1", flashblockIndex: "0x1" });
    expect(sent.map((t) => JSON.parse(t) as { params: { subscription: string; result: unknown } })).toEqual([
      { jsonrpc: "2.0", method: "eth_subscription", params: { subscription: id, result: { blockNumber: "0x1", flashblockIndex: "0x1" } } },
    ]);

    for (const [method, params] of [
      ["eth_getBalance", [addr(5), at(1, 2)]],
      ["eth_call", [{ data: balanceProbe(addr(5)) }, at(1, 2)]],
      ["eth_getBlockByNumber", [at(1, 2), false]],
      ["eth_getBlockReceipts", [at(1, 2)]],
      ["eth_getBlockTransactionCountByNumber", [at(1, 2)]],
      ["eth_getBalance", [addr(5), at(2, 0)]],
    ] as const) {
      const e = await rpcError(method, [...params]);
      expect(e.code, method).toBe(-32002);
      expect((e.data as { height: unknown }).height, method).toEqual({ blockNumber: "0x1", flashblockIndex: "0x1" });
    }
    expect(await outcomes()).toMatchObject({ not_yet: 7 });
    // The same answer when the error comes back from an execution worker (rebuilt from its plain form).
    const worker = new FlashblockPositionError(FlashblockPositionErrorCode.NOT_YET, { blockNumber: 2, flashblockIndex: 3 }, { blockNumber: 1, flashblockIndex: 1 }).toObject();
    expect(toJsonRpcError(BasaltError.fromObject(worker))).toEqual({
      code: -32002,
      message: "flashblock 2-3 not yet received (this node is at 1-1)",
      data: { blockNumber: "0x2", flashblockIndex: "0x3", height: { blockNumber: "0x1", flashblockIndex: "0x1" } },
    });
    hub.close();
  });

  it("answers as of index K while later flashblocks of the block are applied: state, calls, block, receipts, counts", async () => {
    await feed(framesOf(sealed[0]!).slice(2));
    expect(await rpc("base_flashblockHeight", [])).toEqual({ blockNumber: "0x1", flashblockIndex: "0x2" });
    const g5 = genesisBalance(5);
    // Account 5 receives 1000 in flashblock 1 and 2000 in flashblock 2.
    expect(BigInt((await rpc("eth_getBalance", [addr(5), at(1, 0)])) as string)).toBe(g5);
    expect(BigInt((await rpc("eth_getBalance", [addr(5), at(1, 1)])) as string)).toBe(g5 + 1000n);
    expect(BigInt((await rpc("eth_getBalance", [addr(5), at(1, 2)])) as string)).toBe(g5 + 3000n);
    expect(BigInt((await rpc("eth_getBalance", [addr(5), "pending"])) as string)).toBe(g5 + 3000n);
    // Calls run on the state as of the index (the execution workers' pending call target).
    expect(BigInt((await rpc("eth_call", [{ data: balanceProbe(addr(5)) }, at(1, 1)])) as string)).toBe(g5 + 1000n);
    expect(BigInt((await rpc("eth_call", [{ data: balanceProbe(addr(5)) }, at(1, 2)])) as string)).toBe(g5 + 3000n);
    // The nonce as of the index: no mempool, only the transactions up to it.
    expect(await rpc("eth_getTransactionCount", [addr(1), at(1, 1)])).toBe("0x0");
    expect(await rpc("eth_getTransactionCount", [addr(1), at(1, 2)])).toBe("0x1");

    const hashes = sealed[0]!.transactions.map((t) => bytesToHex(t.hash()));
    const b1 = (await rpc("eth_getBlockByNumber", [at(1, 1), false])) as { hash: string; number: string; transactions: string[]; gasUsed: string };
    const b2 = (await rpc("eth_getBlockByNumber", [at(1, 2), true])) as { hash: string; transactions: { hash: string; blockHash: string }[]; gasUsed: string };
    const pending = (await rpc("eth_getBlockByNumber", ["pending", false])) as { hash: string };
    expect(b1.number).toBe("0x1");
    expect(b1.transactions).toEqual(hashes.slice(0, 2));
    expect(b2.transactions.map((t) => t.hash)).toEqual(hashes);
    expect(b2.hash).toBe(pending.hash);
    expect(b1.hash).not.toBe(b2.hash);
    expect(BigInt(b1.gasUsed)).toBeLessThan(BigInt(b2.gasUsed));
    const full1 = (await rpc("eth_getBlockByNumber", [at(1, 1), true])) as { transactions: { blockHash: string }[] };
    expect(full1.transactions.map((t) => t.blockHash)).toEqual([b1.hash, b1.hash]);
    const receipts1 = (await rpc("eth_getBlockReceipts", [at(1, 1)])) as { blockHash: string; transactionHash: string }[];
    expect(receipts1.map((r) => r.transactionHash)).toEqual(hashes.slice(0, 2));
    expect(receipts1.every((r) => r.blockHash === b1.hash)).toBe(true);
    expect(await rpc("eth_getBlockTransactionCountByNumber", [at(1, 0)])).toBe("0x1");
    expect(await rpc("eth_getBlockTransactionCountByNumber", [at(1, 2)])).toBe("0x3");
    // The same position answers the same after a later frame (the next block starts on this one).
    const next = framesOf(sealed[1]!);
    await feed(next.slice(0, 2));
    expect(await rpc("base_flashblockHeight", [])).toEqual({ blockNumber: "0x2", flashblockIndex: "0x1" });
    expect((await rpc("eth_getBlockByNumber", [at(1, 1), false])) as unknown).toEqual(b1);
    expect(BigInt((await rpc("eth_getBalance", [addr(5), at(1, 1)])) as string)).toBe(g5 + 1000n);
    // The earlier pending block as of its last index is the producer's sealed state (deltas folded over two blocks agree).
    for (const i of [0, 1, 5, 7]) expect(BigInt((await rpc("eth_getBalance", [addr(i), at(1, 2)])) as string), `account ${i}`).toBe(balanceAt(1, i));
    expect(BigInt((await rpc("eth_getBalance", [addr(7), at(2, 0)])) as string)).toBe(balanceAt(1, 7));
    expect(BigInt((await rpc("eth_getBalance", [addr(7), at(2, 1)])) as string)).toBe(balanceAt(1, 7) + 3000n);
    expect(BigInt((await rpc("eth_call", [{ data: balanceProbe(addr(7)) }, at(2, 1)])) as string)).toBe(balanceAt(1, 7) + 3000n);
    await feed(next.slice(2));
    for (const i of [0, 2, 5, 7]) expect(BigInt((await rpc("eth_getBalance", [addr(i), at(2, 2)])) as string), `account ${i}`).toBe(balanceAt(2, i));
    expect(await outcomes()).toMatchObject({ pending: expect.any(Number) });
  });

  it("answers from the canonical block once the block is canonical, whatever the index", async () => {
    await follower.insertBlock(sealed[0]!);
    await follower.setHead(sealed[0]!.hash());
    ingest.onCanonical();
    await ingest.drained();
    const before = (await outcomes()).canonical ?? 0;
    const canonical = (await rpc("eth_getBlockByNumber", [at(1, 1), false])) as { hash: string; transactions: string[] };
    expect(canonical.hash).toBe(bytesToHex(sealed[0]!.hash()));
    expect(canonical.transactions.length).toBe(3);
    expect(BigInt((await rpc("eth_getBalance", [addr(5), at(1, 1)])) as string)).toBe(balanceAt(1, 5));
    expect(BigInt((await rpc("eth_call", [{ data: balanceProbe(addr(5)) }, at(1, 0)])) as string)).toBe(balanceAt(1, 5));
    expect(await rpc("eth_getBlockTransactionCountByNumber", [at(1, 0)])).toBe("0x3");
    expect(((await rpc("eth_getBlockReceipts", [at(1, 0)])) as unknown[]).length).toBe(3);
    // An index the stream never had is canonical too: the canonical block holds every flashblock.
    expect(BigInt((await rpc("eth_getBalance", [addr(5), at(1, 9)])) as string)).toBe(balanceAt(1, 5));
    expect((await outcomes()).canonical).toBe(before + 6);
    // Block 2 is still pending on the new anchor (rebuilt): its positions still answer.
    expect(BigInt((await rpc("eth_getBalance", [addr(7), at(2, 1)])) as string)).toBe(balanceAt(1, 7) + 3000n);
    expect(BigInt((await rpc("eth_getBalance", [addr(5), at(2, 2)])) as string)).toBe(balanceAt(2, 5));
  });

  it("eth_getLogs with toBlock as of a flashblock: the logs of the transactions up to it", async () => {
    for (const blk of sealed.slice(1, 3)) {
      await follower.insertBlock(blk);
      await follower.setHead(blk.hash());
    }
    ingest.onCanonical();
    await ingest.drained();
    await feed(framesOf(sealed[3]!));
    expect(await rpc("base_flashblockHeight", [])).toEqual({ blockNumber: "0x4", flashblockIndex: "0x2" });
    const address = bytesToHex(contract);
    const logs = async (toBlock: unknown, fromBlock: unknown = "0x2"): Promise<{ blockNumber: string; blockHash: string; transactionIndex: string; logIndex: string }[]> =>
      (await rpc("eth_getLogs", [{ fromBlock, toBlock, address }])) as never;
    expect(await logs(at(4, 0))).toEqual([]);
    const one = await logs(at(4, 1));
    const two = await logs(at(4, 2));
    expect(one.map((l) => [l.blockNumber, l.transactionIndex, l.logIndex])).toEqual([["0x4", "0x1", "0x0"]]);
    expect(two.map((l) => [l.blockNumber, l.transactionIndex, l.logIndex])).toEqual([["0x4", "0x1", "0x0"], ["0x4", "0x2", "0x1"]]);
    // Each names its index's partial block hash.
    expect(one[0]!.blockHash).toBe(((await rpc("eth_getBlockByNumber", [at(4, 1), false])) as { hash: string }).hash);
    expect(two[0]!.blockHash).toBe(((await rpc("eth_getBlockByNumber", ["pending", false])) as { hash: string }).hash);
    expect(await logs("pending")).toEqual(two);
    expect(await logs(at(4, 2), "pending")).toEqual(two);
    // A canonical position is its block number; beyond the height, -32002; a fromBlock after the position, -32602.
    expect(await logs(at(3, 7))).toEqual([]);
    expect((await rpcError("eth_getLogs", [{ fromBlock: "0x2", toBlock: at(4, 3) }])).code).toBe(-32002);
    expect((await rpcError("eth_getLogs", [{ fromBlock: "0x5", toBlock: at(4, 1) }])).code).toBe(-32602);
    expect((await rpcError("eth_getLogs", [{ fromBlock: at(4, 1), toBlock: "pending" }])).code).toBe(-32602);
  });

  it("refuses malformed positions with -32602", async () => {
    const bad: unknown[] = [
      { blockNumber: "0x2", flashblockIndex: "-0x1" },
      { blockNumber: "0x2", flashblockIndex: "0x10000" },
      { blockNumber: "0x2", flashblockIndex: "0xffffffffffffffffff" },
      { blockNumber: "0x2", flashblockIndex: 1 },
      { blockNumber: "0x2", flashblockIndex: "1" },
      { blockNumber: "pending", flashblockIndex: "0x1" },
      { flashblockIndex: "0x1" },
      { blockNumber: "0x2", flashblockIndex: "0x1", blockHash: "0x" + "00".repeat(32) },
      { blockNumber: "0x20000000000000", flashblockIndex: "0x1" },
    ];
    for (const p of bad) {
      for (const [method, params] of [
        ["eth_getBalance", [addr(5), p]],
        ["eth_getBlockByNumber", [p, false]],
        ["eth_call", [{ data: "0x" }, p]],
      ] as const) {
        const e = await rpcError(method, [...params]);
        expect(e.code, `${method} ${JSON.stringify(p)}`).toBe(-32602);
      }
    }
    expect((await rpcError("eth_getBalance", [addr(5), { blockNumber: "0x2", flashblockIndex: "0x10000" }])).message).toBe(
      "invalid argument 1: flashblockIndex 65536 is out of range (at most 65535)",
    );
    // EIP-1898 objects keep working beside it.
    expect(await rpc("eth_getBalance", [addr(5), { blockNumber: "0x1" }])).toBe("0x" + balanceAt(1, 5).toString(16));
    expect(await rpc("eth_getBalance", [addr(5), { blockHash: bytesToHex(sealed[0]!.hash()) }])).toBe("0x" + balanceAt(1, 5).toString(16));
  });
});
