/**
 * The `pending` tag answered from the pre-confirmed (flashblocks) state in every RPC method, its
 * fallback to `latest`, canonical-first lookups and eth_sendRawTransactionSync.
 *
 * The pending snapshot is built from real execution: a producer devnet chain seals blocks with
 * signed transactions (deploy and calls of a small contract that stores NUMBER, emits a log and
 * returns NUMBER and TIMESTAMP; transfers), a replay chain re-executes them for the state diff,
 * and the JSON the RPC serves is rendered by the producer's own RPC methods — rewritten to the
 * partial-block hash and zero state root a flashblocks builder publishes. The snapshot passes
 * through the msgpack codec the worker uses. The node under test is a second devnet chain
 * behind those blocks, with a hand-driven {@link PendingSource}.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createBlockHeader, type Block } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBlockFromRlp } from "../../src/chain/blockCodec.js";
import { Chain } from "../../src/blockchain/chain.js";
import { encodeBody } from "../../src/chain/blockCodec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS } from "../../src/rpc/constants.js";
import { InlineCallService } from "../../src/rpc/inlineCalls.js";
import {
  PENDING_SNAPSHOT_VERSION,
  decodePendingSnapshot,
  encodePendingSnapshot,
  type PendingBlockView,
  type PendingSnapshot,
  type PendingTx,
} from "../../src/flashblocks/pendingSnapshot.js";
import { NO_PENDING, type PendingSource } from "../../src/flashblocks/pendingView.js";
import type { RpcBackend } from "../../src/rpc/backend.js";
import { toJsonRpcError } from "../../src/rpc/errors.js";
import { createAddress } from "../../src/chain/json/receipt.js";
import { blockMethods } from "../../src/rpc/methods/blocks.js";
import { callMethods } from "../../src/rpc/methods/call.js";
import { logMethods } from "../../src/rpc/methods/logs.js";
import { sendSyncMethods, waitForReceipt } from "../../src/rpc/methods/sendSync.js";
import { stateMethods } from "../../src/rpc/methods/state.js";
import { RawJson, type MethodTable, type RpcContext } from "../../src/rpc/types.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import type { BlockWrite } from "../../src/storage/store.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { to0x } from "../../src/util/bytes.js";
import { waitUntil } from "../helpers/poll.js";

const silent = pino({ level: "silent" });
const CTX: RpcContext = { transport: "http" };
const ETH = 10n ** 18n;
/** Per-test bound on waits that must settle (sync sends with a receipt). */
const WAIT_MS = 5_000;

/**
 * Runtime of the test contract: SSTORE(0, NUMBER); LOG1(mem[0..32] = 42, topic 1);
 * RETURN(abi(NUMBER, TIMESTAMP)).
 */
const RUNTIME = "435f55" + "602a5f52" + "600160205fa1" + "435f524260205260405ff3";
/** Init code: CODECOPY the runtime (which follows these 10 bytes) to memory 0 and return it. */
const INIT = "0x" + "6018600a5f396018" + "5ff3" + RUNTIME;
const LOG_TOPIC = "0x" + "01".padStart(64, "0");

const dirs: string[] = [];
async function freshChain(): Promise<Chain> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-pending-"));
  dirs.push(dir);
  await Chain.init(dir, devnetGenesis(), { archive: true });
  return Chain.open(dir, { logger: silent });
}

/** A pending source driven by the test: `emit` publishes a snapshot to the listeners. */
class TestPendingSource implements PendingSource {
  snapshot: PendingSnapshot | undefined;
  readonly listeners = new Set<(s: PendingSnapshot) => void>();
  current(): PendingSnapshot | undefined {
    return this.snapshot;
  }
  onSnapshot(listener: (s: PendingSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
  emit(s: PendingSnapshot): void {
    this.snapshot = s;
    for (const l of [...this.listeners]) l(s);
  }
}

function backendOf(chain: Chain, pool: TxPool, pending: PendingSource): RpcBackend {
  return { chain, pool, calls: new InlineCallService(chain, pending), settings: { gasCap: 50_000_000n, clientVersion: "test" }, pending, syncing: () => false };
}

function methodsOf(b: RpcBackend): MethodTable {
  return { ...blockMethods(b), ...stateMethods(b), ...callMethods(b), ...logMethods(b), ...sendSyncMethods(b) };
}

/** Calls a handler and returns its result as the JSON a client receives. */
async function rpc(m: MethodTable, method: string, params: unknown[]): Promise<unknown> {
  const r = await m[method]!(params, CTX);
  return r instanceof RawJson ? JSON.parse(r.json) : r === undefined ? undefined : JSON.parse(JSON.stringify(r));
}

/** Calls a handler that must fail; returns the JSON-RPC error object. */
async function rpcError(m: MethodTable, method: string, params: unknown[]): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await m[method]!(params, CTX);
  } catch (e) {
    return toJsonRpcError(e);
  }
  throw new Error(`${method} did not fail`);
}

const accounts = devAccounts();
const key = (i: number): Uint8Array => hexToBytes(accounts[i]!.privateKey as `0x${string}`);
const addr = (i: number): string => accounts[i]!.address.toLowerCase();

/** A signed EIP-1559 transaction of dev account `from`. */
function signedTx(
  chain: Chain,
  from: number,
  nonce: bigint,
  fields: { to?: string; value?: bigint; data?: string; gasLimit?: bigint },
): { raw: string; hash: string } {
  const tx = createFeeMarket1559Tx(
    {
      chainId: chain.chainId,
      nonce,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 6n,
      gasLimit: fields.gasLimit ?? 100_000n,
      to: fields.to as `0x${string}` | undefined,
      value: fields.value ?? 0n,
      data: fields.data === undefined ? undefined : hexToBytes(fields.data as `0x${string}`),
    },
    { common: chain.commonAt(chain.head.header.number + 1n, chain.head.header.timestamp + 1n) },
  ).sign(key(from));
  return { raw: to0x(tx.serialize()), hash: to0x(tx.hash()) };
}

function blockRlp(b: Block): Uint8Array {
  return RLP.encode([RLP.decode(b.header.serialize()), ...(RLP.decode(encodeBody(b)) as unknown[])] as never);
}

const hexNum = (n: bigint | number): string => "0x" + n.toString(16);

/**
 * The pending view of sealed producer block `block`, as a flashblocks worker renders it: the
 * partial header (state root zero) gives the hash, and every JSON is the producer's RPC answer
 * with the block hash (and state root) of the partial block.
 */
async function pendingView(producer: MethodTable, block: Block): Promise<PendingBlockView> {
  const partial = createBlockHeader({ ...block.header.toJSON(), stateRoot: new Uint8Array(32) } as never, {
    common: block.header.common,
    skipConsensusFormatValidation: true,
  });
  const realHash = to0x(block.hash());
  const hash = to0x(partial.hash());
  const zeroRoot = to0x(new Uint8Array(32));
  const render = async (method: string, params: unknown[]): Promise<string> =>
    JSON.stringify(await rpc(producer, method, params)).replaceAll(realHash, hash);
  const n = hexNum(block.header.number);
  const rootless = (json: string): string => json.replace(to0x(block.header.stateRoot), zeroRoot);
  const txs: PendingTx[] = [];
  for (const tx of block.transactions) {
    const h = to0x(tx.hash());
    const receiptJson = await render("eth_getTransactionReceipt", [h]);
    const r = JSON.parse(receiptJson) as { from: string; to: string | null; logs: PendingTx["logs"] };
    txs.push({ hash: h, from: r.from, to: r.to, txJson: await render("eth_getTransactionByHash", [h]), receiptJson, logs: r.logs, raw: tx.serialize() });
  }
  return {
    number: Number(block.header.number),
    hash,
    parentHash: to0x(block.header.parentHash),
    timestamp: Number(block.header.timestamp),
    index: 0,
    payloadId: "0x" + block.header.number.toString(16).padStart(16, "0"),
    headerRlp: partial.serialize(),
    blockJson: rootless(await render("eth_getBlockByNumber", [n, false])),
    blockJsonFull: rootless(await render("eth_getBlockByNumber", [n, true])),
    receiptsJson: await render("eth_getBlockReceipts", [n]),
    txs,
    newTxCount: txs.length,
  };
}

/** The absolute state diff of `writes` (executed in order from the anchor). */
function stateDiff(writes: BlockWrite[]): PendingSnapshot["state"] {
  const accounts = new Map<string, [Uint8Array, Uint8Array | null]>();
  const storage = new Map<string, [Uint8Array, Uint8Array, Uint8Array]>();
  const code = new Map<string, [Uint8Array, Uint8Array]>();
  for (const w of writes) {
    for (const c of w.accountChanges) accounts.set(to0x(c.address!), [c.address!, c.after ?? null]);
    for (const c of w.storageChanges) if (c.slot !== undefined) storage.set(to0x(c.address!) + to0x(c.slot), [c.address!, c.slot, c.after]);
    for (const [h, c] of w.code) code.set(h, [hexToBytes(("0x" + h.replace(/^0x/, "")) as `0x${string}`), c]);
  }
  return { accounts: [...accounts.values()], storage: [...storage.values()], code: [...code.values()], cleared: [] };
}

/** A snapshot of pending blocks `views` over anchor `anchor`, through the worker's codec. */
function snapshotOf(anchor: Chain, views: PendingBlockView[], writes: BlockWrite[]): PendingSnapshot {
  const last = views.at(-1)!;
  const now = performance.timeOrigin + performance.now();
  const s: PendingSnapshot = {
    version: PENDING_SNAPSHOT_VERSION,
    anchor: { number: 0, hash: to0x(anchor.genesisHash) },
    blocks: views,
    state: stateDiff(writes),
    flashblock: { block: last.number, index: last.index },
    receivedAt: now,
    executedAt: now,
  };
  return decodePendingSnapshot(encodePendingSnapshot(s))!;
}

/** Decodes the (NUMBER, TIMESTAMP) the test contract returns. */
function numberAndTime(ret: unknown): [bigint, bigint] {
  const h = (ret as string).slice(2);
  return [BigInt("0x" + h.slice(0, 64)), BigInt("0x" + h.slice(64, 128))];
}

/** Runs `m(params)` for `pending` and `latest` and expects the same answer. */
async function samePendingAndLatest(m: MethodTable, method: string, params: (tag: string) => unknown[]): Promise<void> {
  expect(await rpc(m, method, params("pending")), method).toEqual(await rpc(m, method, params("latest")));
}

describe("pending tag from the pre-confirmed state", () => {
  /** Producer: seals the blocks whose pending views make the snapshot. */
  let producer: Chain;
  let producerPool: TxPool;
  let producerSeq: OpDevSequencer;
  let producerRpc: MethodTable;
  /** Replay: re-executes the producer's blocks for the state diffs (ends canonical at block 2). */
  let replay: Chain;
  /** Node under test: at genesis, behind every pending block. */
  let node: Chain;
  const writes: BlockWrite[] = [];
  const views: PendingBlockView[] = [];
  const blocks: Block[] = [];
  /** Snapshot of blocks 1..3 (anchor genesis). */
  let snap: PendingSnapshot;
  const contract = to0x(createAddress(hexToBytes(accounts[0]!.address as `0x${string}`), 0n));
  const recipient = "0x" + "5e".repeat(20);
  const txs: Record<string, string> = {};

  beforeAll(async () => {
    producer = await freshChain();
    producerPool = new TxPool(producer);
    producerSeq = new OpDevSequencer(producer, producerPool, 0, silent);
    producerRpc = methodsOf(backendOf(producer, producerPool, NO_PENDING));
    const submit = async (name: string, t: { raw: string; hash: string }): Promise<void> => {
      txs[name] = t.hash;
      await producerPool.addRaw(hexToBytes(t.raw as `0x${string}`));
    };
    // Block 1: deploy, call (log), transfer.
    await submit("deploy", signedTx(producer, 0, 0n, { data: INIT, gasLimit: 200_000n }));
    await submit("call1", signedTx(producer, 0, 1n, { to: contract }));
    await submit("transfer", signedTx(producer, 1, 0n, { to: recipient, value: ETH }));
    await producerSeq.sealOne();
    // Block 2: two calls (two logs).
    await submit("call2a", signedTx(producer, 2, 0n, { to: contract }));
    await submit("call2b", signedTx(producer, 0, 2n, { to: contract }));
    await producerSeq.sealOne();
    // Block 3: a transfer and a call.
    await submit("transfer3", signedTx(producer, 3, 0n, { to: recipient, value: 2n * ETH }));
    await submit("call3", signedTx(producer, 4, 0n, { to: contract }));
    await producerSeq.sealOne();
    replay = await freshChain();
    for (let n = 1n; n <= 3n; n++) {
      const b = producer.getBlockByNumber(n)!;
      blocks.push(b);
      views.push(await pendingView(producerRpc, b));
      const ex = await replay.executeBlock(decodeBlockFromRlp(replay, blockRlp(b)));
      writes.push(ex.write);
      if (n < 3n) replay.commitCanonical(ex);
    }
    expect(blocks.map((b) => b.transactions.length)).toEqual([4, 3, 3]); // L1-info deposit first
    snap = snapshotOf(producer, views, writes);
    node = await freshChain();
  }, 60_000);

  afterAll(async () => {
    await producerSeq?.stop();
    for (const c of [producer, replay, node]) await c?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const withSnapshot = (chain: Chain, s: PendingSnapshot | undefined, pool = new TxPool(chain)): MethodTable => {
    const source = new TestPendingSource();
    source.snapshot = s;
    return methodsOf(backendOf(chain, pool, source));
  };

  describe("blocks and transactions", () => {
    it("eth_getBlockByNumber(pending) is the pending block's JSON, hashes and full", async () => {
      const m = withSnapshot(node, snap);
      expect(await rpc(m, "eth_getBlockByNumber", ["pending", false])).toEqual(JSON.parse(views[2]!.blockJson));
      type FullBlock = { number: string; stateRoot: string; transactions: { hash: string }[] };
      const full = (await rpc(m, "eth_getBlockByNumber", ["pending", true])) as FullBlock;
      expect(full).toEqual(JSON.parse(views[2]!.blockJsonFull));
      expect(full.number).toBe("0x3");
      expect(full.stateRoot).toBe(to0x(new Uint8Array(32)));
      expect(full.transactions.map((t) => t.hash)).toEqual(blocks[2]!.transactions.map((t) => to0x(t.hash())));
      // Other tags are untouched.
      expect(((await rpc(m, "eth_getBlockByNumber", ["latest", false])) as { number: string }).number).toBe("0x0");
    });

    it("eth_getBlockByHash finds every block of the snapshot by its partial-block hash", async () => {
      const m = withSnapshot(node, snap);
      for (const v of views) {
        expect(await rpc(m, "eth_getBlockByHash", [v.hash, false])).toEqual(JSON.parse(v.blockJson));
        expect(await rpc(m, "eth_getBlockByHash", [v.hash, true])).toEqual(JSON.parse(v.blockJsonFull));
        expect(await rpc(m, "eth_getBlockTransactionCountByHash", [v.hash])).toBe(hexNum(v.txs.length));
        expect(await rpc(m, "eth_getTransactionByBlockHashAndIndex", [v.hash, "0x1"])).toEqual(JSON.parse(v.txs[1]!.txJson));
        expect(await rpc(m, "eth_getBlockReceipts", [v.hash])).toEqual(JSON.parse(v.receiptsJson));
      }
      expect(await rpc(m, "eth_getBlockByHash", ["0x" + "ab".repeat(32), false])).toBeNull();
    });

    it("counts, indexes, receipts and uncles of the pending block", async () => {
      const m = withSnapshot(node, snap);
      expect(await rpc(m, "eth_getBlockTransactionCountByNumber", ["pending"])).toBe("0x3");
      expect(await rpc(m, "eth_getTransactionByBlockNumberAndIndex", ["pending", "0x2"])).toEqual(JSON.parse(views[2]!.txs[2]!.txJson));
      expect(await rpc(m, "eth_getTransactionByBlockNumberAndIndex", ["pending", "0x3"])).toBeNull();
      const receipts = (await rpc(m, "eth_getBlockReceipts", ["pending"])) as { transactionHash: string }[];
      expect(receipts).toEqual(JSON.parse(views[2]!.receiptsJson));
      expect(receipts.map((r) => r.transactionHash)).toEqual([views[2]!.txs[0]!.hash, txs.transfer3, txs.call3]);
      expect(await rpc(m, "eth_getBlockReceipts", [{ blockNumber: "pending" }])).toEqual(receipts);
      expect(await rpc(m, "eth_getUncleCountByBlockNumber", ["pending"])).toBe("0x0");
    });

    it("eth_getTransactionByHash / eth_getTransactionReceipt search every pending block", async () => {
      const m = withSnapshot(node, snap);
      for (const [name, blockIndex] of [["deploy", 0], ["transfer", 0], ["call2a", 1], ["call3", 2]] as const) {
        const pre = views[blockIndex]!.txs.find((t) => t.hash === txs[name])!;
        expect(await rpc(m, "eth_getTransactionByHash", [txs[name]]), name).toEqual(JSON.parse(pre.txJson));
        expect(await rpc(m, "eth_getTransactionReceipt", [txs[name]]), name).toEqual(JSON.parse(pre.receiptJson));
        expect(await rpc(m, "eth_getTransactionReceipt", [txs[name]!.toUpperCase().replace("0X", "0x")]), name).toEqual(JSON.parse(pre.receiptJson));
      }
      const deployReceipt = (await rpc(m, "eth_getTransactionReceipt", [txs.deploy])) as { contractAddress: string; blockHash: string };
      expect(deployReceipt.contractAddress).toBe(contract);
      expect(deployReceipt.blockHash).toBe(views[0]!.hash);
      expect(await rpc(m, "eth_getTransactionByHash", ["0x" + "cd".repeat(32)])).toBeNull();
      expect(await rpc(m, "eth_getTransactionReceipt", ["0x" + "cd".repeat(32)])).toBeNull();
    });

    it("reth's header and raw-transaction reads answer from the snapshot's blocks", async () => {
      const m = withSnapshot(node, snap);
      const headerOf = (json: string): unknown => {
        const { transactions: _t, uncles: _u, withdrawals: _w, ...header } = JSON.parse(json) as Record<string, unknown>;
        return header;
      };
      expect(await rpc(m, "eth_getHeaderByNumber", ["pending"])).toEqual(headerOf(views[2]!.blockJson));
      for (const v of views) expect(await rpc(m, "eth_getHeaderByHash", [v.hash])).toEqual(headerOf(v.blockJson));
      for (const [name, blockIndex] of [["deploy", 0], ["call2a", 1], ["call3", 2]] as const) {
        const tx = blocks[blockIndex]!.transactions.find((t) => to0x(t.hash()) === txs[name])!;
        expect(await rpc(m, "eth_getRawTransactionByHash", [txs[name]]), name).toBe(to0x(tx.serialize()));
      }
      expect(await rpc(m, "eth_getRawTransactionByBlockNumberAndIndex", ["pending", "0x2"])).toBe(await rpc(m, "eth_getRawTransactionByHash", [txs.call3]));
      expect(await rpc(m, "eth_getRawTransactionByBlockHashAndIndex", [views[2]!.hash, "0x2"])).toBe(await rpc(m, "eth_getRawTransactionByHash", [txs.call3]));
      expect(await rpc(m, "eth_getRawTransactionByBlockNumberAndIndex", ["pending", "0x3"])).toBeNull();
      // Without the snapshot the pre-confirmed transaction is unknown.
      expect(await rpc(withSnapshot(node, undefined), "eth_getRawTransactionByHash", [txs.call3])).toBeNull();
    });

    it("lookups by hash answer from the canonical chain first", async () => {
      // The replay chain has blocks 1 and 2 canonical (real hashes); the snapshot still holds them.
      const m = withSnapshot(replay, snap);
      const canonical = withSnapshot(replay, undefined);
      for (const name of ["deploy", "call1", "call2b"]) {
        const tx = (await rpc(m, "eth_getTransactionByHash", [txs[name]])) as { blockHash: string };
        expect(tx).toEqual(await rpc(canonical, "eth_getTransactionByHash", [txs[name]]));
        expect(tx.blockHash).toBe(to0x(blocks[name === "call2b" ? 1 : 0]!.hash()));
        const r = await rpc(m, "eth_getTransactionReceipt", [txs[name]]);
        expect(r).toEqual(await rpc(canonical, "eth_getTransactionReceipt", [txs[name]]));
      }
      // Block 3 is not canonical there: its transactions come from the snapshot.
      expect(await rpc(m, "eth_getTransactionReceipt", [txs.call3])).toEqual(JSON.parse(views[2]!.txs[2]!.receiptJson));
      expect(await rpc(canonical, "eth_getTransactionReceipt", [txs.call3])).toBeNull();
    });

    it("a pre-confirmed transaction answers from the snapshot before the mempool", async () => {
      const pool = new TxPool(node);
      const same = signedTx(node, 1, 0n, { to: recipient, value: ETH });
      expect(same.hash).toBe(txs.transfer);
      await pool.addRaw(hexToBytes(same.raw as `0x${string}`));
      const m = withSnapshot(node, snap, pool);
      const pre = views[0]!.txs.find((t) => t.hash === txs.transfer)!;
      expect(await rpc(m, "eth_getTransactionByHash", [txs.transfer])).toEqual(JSON.parse(pre.txJson));
      const mempoolOnly = withSnapshot(node, undefined, pool);
      expect(((await rpc(mempoolOnly, "eth_getTransactionByHash", [txs.transfer])) as { blockHash: unknown }).blockHash).toBeNull();
    });
  });

  describe("state", () => {
    it("balances, code and storage include the pre-confirmed transactions", async () => {
      const m = withSnapshot(node, snap);
      expect(await rpc(m, "eth_getBalance", [recipient, "pending"])).toBe(hexNum(3n * ETH));
      expect(await rpc(m, "eth_getBalance", [recipient, "latest"])).toBe("0x0");
      expect(await rpc(m, "eth_getBalance", [recipient, { blockNumber: "pending" }])).toBe(hexNum(3n * ETH));
      expect(await rpc(m, "eth_getCode", [contract, "pending"])).toBe("0x" + RUNTIME);
      expect(await rpc(m, "eth_getCode", [contract, "latest"])).toBe("0x");
      const slot0 = "0x" + "0".repeat(64);
      // The last call (block 3) stored NUMBER = 3.
      expect(await rpc(m, "eth_getStorageAt", [contract, "0x0", "pending"])).toBe("0x" + "3".padStart(64, "0"));
      expect(await rpc(m, "eth_getStorageAt", [contract, "0x0", "latest"])).toBe(slot0);
      expect(await rpc(m, "eth_getStorageValues", [{ [contract]: [slot0] }, "pending"])).toEqual({ [contract]: ["0x" + "3".padStart(64, "0")] });
      // The sender's balance after paying value and fees is the producer's.
      const producerM = withSnapshot(producer, undefined);
      expect(await rpc(m, "eth_getBalance", [addr(1), "pending"])).toBe(await rpc(producerM, "eth_getBalance", [addr(1), "0x3"]));
    });

    it("eth_getTransactionCount(pending) is the larger of the pre-confirmed and the mempool nonce", async () => {
      // dev0 sent 3 pre-confirmed transactions (nonces 0..2).
      expect(await rpc(withSnapshot(node, snap), "eth_getTransactionCount", [addr(0), "pending"])).toBe("0x3");
      expect(await rpc(withSnapshot(node, snap), "eth_getTransactionCount", [addr(0), "latest"])).toBe("0x0");
      // Mempool ahead: nonces 0..4 pooled on the node → 5.
      const ahead = new TxPool(node);
      for (let n = 0n; n < 5n; n++) await ahead.addRaw(hexToBytes(signedTx(node, 0, n, { to: recipient, value: 1n }).raw as `0x${string}`));
      expect(await rpc(withSnapshot(node, snap, ahead), "eth_getTransactionCount", [addr(0), "pending"])).toBe("0x5");
      // Mempool behind: nonce 0 pooled → 1 < 3.
      const behind = new TxPool(node);
      await behind.addRaw(hexToBytes(signedTx(node, 0, 0n, { to: recipient, value: 1n }).raw as `0x${string}`));
      expect(await rpc(withSnapshot(node, snap, behind), "eth_getTransactionCount", [addr(0), "pending"])).toBe("0x3");
      // Without a snapshot: the mempool over latest, as before.
      expect(await rpc(withSnapshot(node, undefined, behind), "eth_getTransactionCount", [addr(0), "pending"])).toBe("0x1");
      expect(await rpc(withSnapshot(node, undefined, new TxPool(node)), "eth_getTransactionCount", [addr(0), "pending"])).toBe("0x0");
    });

    it("eth_getProof(pending) answers from latest", async () => {
      const m = withSnapshot(node, snap);
      expect(await rpc(m, "eth_getProof", [recipient, [], "pending"])).toEqual(await rpc(m, "eth_getProof", [recipient, [], "latest"]));
    });
  });

  describe("calls", () => {
    it("eth_call(pending) runs in the pending block's context over the pre-confirmed state", async () => {
      const m = withSnapshot(node, snap);
      const [number, time] = numberAndTime(await rpc(m, "eth_call", [{ to: contract }, "pending"]));
      expect(number).toBe(3n);
      expect(time).toBe(blocks[2]!.header.timestamp);
      // The contract does not exist at latest on the node.
      expect(await rpc(m, "eth_call", [{ to: contract }, "latest"])).toBe("0x");
      // On the replay chain (head 2), latest runs in block 2's context and pending in block 3's.
      const r = withSnapshot(replay, snap);
      expect(numberAndTime(await rpc(r, "eth_call", [{ to: contract }, "latest"]))).toEqual([2n, blocks[1]!.header.timestamp]);
      expect(numberAndTime(await rpc(r, "eth_call", [{ to: contract }, "pending"]))).toEqual([3n, blocks[2]!.header.timestamp]);
    });

    it("eth_call(pending) sees pending balances", async () => {
      const m = withSnapshot(node, snap);
      const spend = [{ from: recipient, to: addr(9), value: hexNum(ETH + ETH / 2n) }, "pending"];
      expect(await rpc(m, "eth_call", spend)).toBe("0x");
      const err = await rpcError(m, "eth_call", [spend[0], "latest"]);
      expect(err.message).toMatch(/insufficient funds/);
    });

    it("eth_estimateGas and eth_createAccessList(pending) execute the pending code", async () => {
      const m = withSnapshot(node, snap);
      const pendingGas = BigInt((await rpc(m, "eth_estimateGas", [{ from: addr(5), to: contract }, "pending"])) as string);
      const latestGas = BigInt((await rpc(m, "eth_estimateGas", [{ from: addr(5), to: contract }, "latest"])) as string);
      expect(latestGas).toBe(21_000n);
      expect(pendingGas).toBeGreaterThan(21_000n);
      // The same as on the replay chain at latest, where the contract's slot holds the block number too.
      const r = withSnapshot(replay, undefined);
      expect(pendingGas).toBe(BigInt((await rpc(r, "eth_estimateGas", [{ from: addr(5), to: contract }, "latest"])) as string));
      const list = (await rpc(m, "eth_createAccessList", [{ from: addr(5), to: contract }, "pending"])) as { gasUsed: string };
      expect(list).toEqual(await rpc(r, "eth_createAccessList", [{ from: addr(5), to: contract }, "latest"]));
      expect(BigInt(list.gasUsed)).toBeGreaterThan(21_000n);
      const latestList = (await rpc(m, "eth_createAccessList", [{ from: addr(5), to: contract }, "latest"])) as { gasUsed: string };
      expect(BigInt(latestList.gasUsed)).toBe(21_000n);
    });
  });

  describe("eth_getLogs", () => {
    const all = (v: PendingBlockView[]): PendingTx["logs"] => v.flatMap((b) => b.txs.flatMap((t) => t.logs));

    it("toBlock pending adds every pre-confirmed log, in block and log order", async () => {
      const m = withSnapshot(node, snap);
      const logs = (await rpc(m, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "pending" }])) as PendingTx["logs"];
      expect(logs).toEqual(all(views));
      expect(logs.map((l) => [l.blockNumber, l.logIndex])).toEqual([
        ["0x1", "0x0"],
        ["0x2", "0x0"],
        ["0x2", "0x1"],
        ["0x3", "0x0"],
      ]);
      expect(logs.every((l) => l.address === contract && l.topics[0] === LOG_TOPIC)).toBe(true);
      // Filters apply to pending logs.
      expect(await rpc(m, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "pending", address: recipient }])).toEqual([]);
      expect(await rpc(m, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "pending", topics: [LOG_TOPIC] }])).toEqual(logs);
      expect(await rpc(m, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "pending", topics: ["0x" + "02".padStart(64, "0")] }])).toEqual([]);
      // fromBlock after the head: only the pending blocks from there.
      expect(await rpc(m, "eth_getLogs", [{ fromBlock: "0x2", toBlock: "pending" }])).toEqual(all(views.slice(1)));
      // fromBlock pending: the pending (not yet canonical) blocks.
      expect(await rpc(m, "eth_getLogs", [{ fromBlock: "pending", toBlock: "pending" }])).toEqual(logs);
      expect(await rpc(m, "eth_getLogs", [{ fromBlock: "pending" }])).toEqual(logs);
      // A range beyond the pending blocks is still refused.
      expect((await rpcError(m, "eth_getLogs", [{ fromBlock: "0x9", toBlock: "pending" }])).message).toBe("invalid block range params");
      // Non-pending ranges are unchanged.
      expect(await rpc(m, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest" }])).toEqual([]);
    });

    it("merges canonical and pending logs, deduplicated by (blockNumber, logIndex) with the canonical log kept", async () => {
      const m = withSnapshot(replay, snap);
      const canonicalLogs = await rpc(withSnapshot(replay, undefined), "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest" }]);
      expect((canonicalLogs as unknown[]).length).toBe(3);
      const logs = (await rpc(m, "eth_getLogs", [{ fromBlock: "0x1", toBlock: "pending" }])) as PendingTx["logs"];
      expect(logs).toEqual([...(canonicalLogs as PendingTx["logs"]), ...all(views.slice(2))]);
      expect(logs[0]!.blockHash).toBe(to0x(blocks[0]!.hash()));
      expect(logs[3]!.blockHash).toBe(views[2]!.hash);
      // fromBlock pending: only the blocks after the head.
      expect(await rpc(m, "eth_getLogs", [{ fromBlock: "pending", toBlock: "pending" }])).toEqual(all(views.slice(2)));
    });
  });

  describe("fallback to latest", () => {
    const fallbackCases = (m: MethodTable): Promise<void>[] => [
      samePendingAndLatest(m, "eth_getBlockByNumber", (t) => [t, false]),
      samePendingAndLatest(m, "eth_getBlockByNumber", (t) => [t, true]),
      samePendingAndLatest(m, "eth_getBlockTransactionCountByNumber", (t) => [t]),
      samePendingAndLatest(m, "eth_getTransactionByBlockNumberAndIndex", (t) => [t, "0x0"]),
      samePendingAndLatest(m, "eth_getBlockReceipts", (t) => [t]),
      samePendingAndLatest(m, "eth_getUncleCountByBlockNumber", (t) => [t]),
      samePendingAndLatest(m, "eth_getBalance", (t) => [recipient, t]),
      samePendingAndLatest(m, "eth_getCode", (t) => [contract, t]),
      samePendingAndLatest(m, "eth_getStorageAt", (t) => [contract, "0x0", t]),
      samePendingAndLatest(m, "eth_getStorageValues", (t) => [{ [contract]: ["0x0"] }, t]),
      samePendingAndLatest(m, "eth_getTransactionCount", (t) => [addr(0), t]),
      samePendingAndLatest(m, "eth_getProof", (t) => [contract, ["0x0"], t]),
      samePendingAndLatest(m, "eth_call", (t) => [{ to: contract }, t]),
      samePendingAndLatest(m, "eth_estimateGas", (t) => [{ from: addr(5), to: contract }, t]),
      samePendingAndLatest(m, "eth_createAccessList", (t) => [{ from: addr(5), to: contract }, t]),
      samePendingAndLatest(m, "eth_getLogs", (t) => [{ fromBlock: "0x0", toBlock: t }]),
      samePendingAndLatest(m, "eth_getLogs", (t) => [{ fromBlock: t }]),
    ];

    it("without a snapshot every pending read answers as latest", async () => {
      for (const chain of [node, replay]) await Promise.all(fallbackCases(withSnapshot(chain, undefined)));
      const m = withSnapshot(replay, undefined);
      expect(((await rpc(m, "eth_getBlockByNumber", ["pending", false])) as { hash: string }).hash).toBe(to0x(blocks[1]!.hash()));
      expect(await rpc(m, "eth_getTransactionReceipt", [txs.call3])).toBeNull();
    });

    it("a snapshot whose pending block is not ahead of the head is ignored", async () => {
      // Blocks 1..2 over the replay chain, whose head is block 2.
      const stale = snapshotOf(producer, views.slice(0, 2), writes.slice(0, 2));
      const m = withSnapshot(replay, stale);
      await Promise.all(fallbackCases(m));
      expect(((await rpc(m, "eth_getBlockByNumber", ["pending", false])) as { hash: string }).hash).toBe(to0x(blocks[1]!.hash()));
      expect(await rpc(m, "eth_getBlockByHash", [views[1]!.hash, false])).toBeNull();
    });
  });

  describe("eth_sendRawTransactionSync", () => {
    /** The node for sync sends: its own chain (sealed by its own sequencer) and a driven pending source. */
    let syncChain: Chain;
    let syncPool: TxPool;
    let syncSeq: OpDevSequencer;
    let source: TestPendingSource;
    let backend: RpcBackend;
    let m: MethodTable;

    beforeAll(async () => {
      syncChain = await freshChain();
      syncPool = new TxPool(syncChain);
      syncSeq = new OpDevSequencer(syncChain, syncPool, 0, silent);
      source = new TestPendingSource();
      backend = backendOf(syncChain, syncPool, source);
      m = methodsOf(backend);
    });

    afterAll(async () => {
      await syncSeq?.stop();
      await syncChain?.close();
    });

    it("refuses a timeout above the maximum", async () => {
      const t = signedTx(syncChain, 6, 0n, { to: recipient, value: 1n });
      const over = SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS + 1;
      expect(await rpcError(m, "eth_sendRawTransactionSync", [t.raw, over])).toEqual({
        code: -32602,
        message: `time out too long, timeout: ${over} ms, max: ${SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS} ms`,
      });
      expect((await rpcError(m, "eth_sendRawTransactionSync", [t.raw, hexNum(over)])).message).toBe(
        `time out too long, timeout: ${over} ms, max: ${SEND_RAW_TX_SYNC_MAX_TIMEOUT_MS} ms`,
      );
      // Nothing was submitted.
      expect(syncPool.get(hexToBytes(t.hash as `0x${string}`))).toBeUndefined();
    });

    it("fails like eth_sendRawTransaction for an invalid transaction", async () => {
      const t = signedTx(syncChain, 6, 0n, { to: recipient, value: 1n, gasLimit: 20_000n });
      const err = await rpcError(m, "eth_sendRawTransactionSync", [t.raw]);
      expect(err.code).toBe(-32000);
      expect(err.message).toMatch(/intrinsic gas too low/);
    });

    it("times out with code 4 when no receipt appears, and removes its listeners", async () => {
      const t = signedTx(syncChain, 6, 0n, { to: recipient, value: 1n });
      const err = await rpcError(m, "eth_sendRawTransactionSync", [t.raw, 150]);
      expect(err).toEqual({ code: 4, message: `Transaction ${t.hash} was added to the mempool but wasn't confirmed within 150ms.`, data: t.hash });
      expect(syncPool.get(hexToBytes(t.hash as `0x${string}`))).toBeDefined();
      expect(source.listeners.size).toBe(0);
    });

    it("returns the pre-confirmed receipt from a snapshot emitted after submission", async () => {
      const t = signedTx(syncChain, 7, 0n, { to: recipient, value: 5n });
      const pending = rpc(m, "eth_sendRawTransactionSync", [t.raw, WAIT_MS]);
      await waitUntil("the condition", WAIT_MS, () => syncPool.get(hexToBytes(t.hash as `0x${string}`)) !== undefined && source.listeners.size === 1, 5);
      // The producer pre-confirms it in block 4; the node's snapshot carries blocks 1..4.
      await producerPool.addRaw(hexToBytes(t.raw as `0x${string}`));
      await producerSeq.sealOne();
      const b4 = producer.getBlockByNumber(4n)!;
      const v4 = await pendingView(producerRpc, b4);
      // (The state diff of block 4 does not matter here.)
      source.emit(snapshotOf(producer, [...views, v4], writes));
      const receipt = (await pending) as { transactionHash: string; blockHash: string; blockNumber: string };
      expect(receipt).toEqual(JSON.parse(v4.txs.find((x) => x.hash === t.hash)!.receiptJson));
      expect(receipt.blockNumber).toBe("0x4");
      expect(source.listeners.size).toBe(0);
    });

    it("returns the canonical receipt when a block with the transaction is sealed", async () => {
      const t = signedTx(syncChain, 8, 0n, { to: recipient, value: 6n });
      const pending = rpc(m, "eth_sendRawTransactionSync", [t.raw]);
      await waitUntil("the condition", WAIT_MS, () => syncPool.get(hexToBytes(t.hash as `0x${string}`)) !== undefined && source.listeners.size === 1, 5);
      await syncSeq.sealOne();
      const receipt = (await pending) as { transactionHash: string; status: string };
      expect(receipt.transactionHash).toBe(t.hash);
      expect(receipt.status).toBe("0x1");
      expect(receipt).toEqual(await rpc(m, "eth_getTransactionReceipt", [t.hash]));
      expect(source.listeners.size).toBe(0);
    });

    it("keeps waiting through snapshots that do not hold the transaction", async () => {
      const t = signedTx(syncChain, 9, 0n, { to: recipient, value: 7n });
      const pending = rpc(m, "eth_sendRawTransactionSync", [t.raw, WAIT_MS]);
      await waitUntil("the condition", WAIT_MS, () => source.listeners.size === 1, 5);
      source.emit(snapshotOf(producer, views, writes)); // blocks 1..3: not this transaction
      expect(source.listeners.size).toBe(1);
      await syncSeq.sealOne();
      expect(((await pending) as { transactionHash: string }).transactionHash).toBe(t.hash);
      expect(source.listeners.size).toBe(0);
    });

    it("answers at once with a receipt that is already known", async () => {
      const known = signedTx(syncChain, 9, 0n, { to: recipient, value: 7n }).hash;
      const receipt = await waitForReceipt(backend, known, 1);
      expect(JSON.parse(JSON.stringify(receipt))).toEqual(await rpc(m, "eth_getTransactionReceipt", [known]));
      // A pre-confirmed receipt of the current snapshot (ahead of this chain's head) also counts.
      source.snapshot = snapshotOf(producer, views, writes);
      const pre = views[2]!.txs[2]!;
      await expect(waitForReceipt(backend, pre.hash, 1)).resolves.toEqual(new RawJson(pre.receiptJson));
      source.snapshot = undefined;
      expect(source.listeners.size).toBe(0);
    });
  });
});

