/**
 * JSON-RPC over WebSocket (RpcWsServer) and eth_subscribe (SubscriptionHub), in-process on a
 * devnet chain in a temp datadir: requests and batches answer as over HTTP; newHeads, logs
 * (filters, reorg removals) and newPendingTransactions follow blocks sealed by the devnet
 * sequencer and the mempool; the flashblocks kinds follow snapshots of a hand-made pending
 * source; unsubscribe, unknown kinds, HTTP refusal, connection close, oversize messages, slow
 * consumers; and `startNode` wiring with `ws` on.
 */
import type { Block } from "@ethereumjs/block";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { register } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startNode } from "../../src/cli/commands/node.js";
import { Chain } from "../../src/blockchain/chain.js";
import { tableDefaults, type BasaltOptions } from "../../src/config/options.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import type { PendingSource } from "../../src/flashblocks/pendingView.js";
import type { PendingSnapshot, PendingTx } from "../../src/flashblocks/pendingSnapshot.js";
import type { RpcBackend } from "../../src/rpc/backend.js";
import { createAddress, formatHeader, type RpcLog } from "../../src/chain/json/index.js";
import { blockMethods } from "../../src/rpc/methods/blocks.js";
import { nodeMethods } from "../../src/rpc/methods/node.js";
import { RpcHttpServer } from "../../src/rpc/server.js";
import { httpSubscriptionMethods, SubscriptionHub } from "../../src/rpc/subscriptions.js";
import type { MethodTable } from "../../src/rpc/types.js";
import { RpcWsServer } from "../../src/rpc/wsServer.js";
import { OpDevSequencer } from "../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../src/txpool/txpool.js";
import { pollUntil, waitUntil } from "../helpers/poll.js";

const silent = pino({ level: "silent" });
const WAIT_MS = 5000;
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), "basalt-ws-"));
  dirs.push(d);
  return d;
};

// ---- a tiny WebSocket JSON-RPC client ----------------------------------------------------

interface Msg {
  raw: string;
  json: Record<string, unknown> & {
    id?: unknown;
    method?: string;
    params?: { subscription: string; result: unknown };
    result?: unknown;
    error?: { code: number; message: string };
  };
}

class Client {
  readonly messages: Msg[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private nextId = 1;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      const raw = data.toString();
      this.messages.push({ raw, json: JSON.parse(raw) as Msg["json"] });
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) => ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static open(url: string): Promise<Client> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      const c = new Client(ws);
      ws.once("open", () => resolve(c));
      ws.once("error", reject);
    });
  }

  /** Resolves with the first message (from `from` on) satisfying `pred`. */
  async waitFor(pred: (m: Msg) => boolean, from = 0, timeoutMs = WAIT_MS): Promise<Msg> {
    return pollUntil("a matching WebSocket message", timeoutMs, () => this.messages.slice(from).find(pred), {
      intervalMs: timeoutMs,
      wake: (wakeUp) => this.waiters.push(wakeUp),
      detail: () => `got ${this.messages.map((m) => m.raw.slice(0, 200)).join("\n")}`,
    });
  }

  sendRaw(text: string): void {
    this.ws.send(text);
  }

  async call(method: string, params: unknown[] = []): Promise<Msg["json"]> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return (await this.waitFor((m) => m.json.id === id)).json;
  }

  async subscribe(params: unknown[]): Promise<string> {
    const r = await this.call("eth_subscribe", params);
    expect(r.error).toBeUndefined();
    return r.result as string;
  }

  notifications(sub: string): unknown[] {
    return this.messages.filter((m) => m.json.method === "eth_subscription" && m.json.params?.subscription === sub).map((m) => m.json.params?.result);
  }

  async nextNotification(sub: string, index = 0): Promise<unknown> {
    await this.waitFor(() => this.notifications(sub).length > index);
    return this.notifications(sub)[index];
  }

  close(): Promise<unknown> {
    this.ws.close();
    return this.closed;
  }
}

// ---- fixtures ------------------------------------------------------------------------------

/** A pending source the test drives by hand. */
class ManualPending implements PendingSource {
  private readonly listeners = new Set<(s: PendingSnapshot) => void>();
  current(): PendingSnapshot | undefined {
    return undefined;
  }
  onSnapshot(l: (s: PendingSnapshot) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  emit(s: PendingSnapshot): void {
    for (const l of this.listeners) l(s);
  }
  get listenerCount(): number {
    return this.listeners.size;
  }
}

const TOPIC = "0x" + "ab".repeat(32);
const OTHER_TOPIC = "0x" + "cd".repeat(32);
const h32 = (n: number): string => "0x" + n.toString(16).padStart(64, "0");
const a20 = (n: number): string => "0x" + n.toString(16).padStart(40, "0");

function pendingLog(address: string, topics: string[], txHash: string, txIndex: number, logIndex: number): RpcLog {
  return {
    address,
    topics,
    data: "0x",
    blockNumber: "0x5",
    transactionHash: txHash,
    transactionIndex: `0x${txIndex.toString(16)}`,
    blockHash: h32(0),
    blockTimestamp: "0x64",
    logIndex: `0x${logIndex.toString(16)}`,
    removed: false,
  };
}

function pendingTx(i: number, logs: RpcLog[]): PendingTx {
  const hash = h32(0x1000 + i);
  return {
    hash,
    from: a20(0xf0),
    to: a20(0xe0),
    raw: Uint8Array.of(0x02, i),
    txJson: JSON.stringify({ blockHash: null, blockNumber: "0x5", hash, from: a20(0xf0), transactionIndex: `0x${i.toString(16)}` }),
    receiptJson: JSON.stringify({
      type: "0x2",
      status: "0x1",
      cumulativeGasUsed: `0x${(21000 * (i + 1)).toString(16)}`,
      logs,
      logsBloom: "0x" + "00".repeat(256),
      transactionHash: hash,
      gasUsed: "0x5208",
      contractAddress: null,
    }),
    logs,
  };
}

/** A snapshot whose pending block (number 5) holds `txs`, the last `newTxCount` added by its latest flashblock. */
function snapshot(txs: PendingTx[], newTxCount: number, blockJsonFull?: string): PendingSnapshot {
  const full = blockJsonFull ?? JSON.stringify({ hash: h32(0), number: "0x5", transactions: txs.map((t) => JSON.parse(t.txJson) as unknown) });
  return {
    version: 1,
    anchor: { number: 4, hash: h32(4) },
    blocks: [
      {
        number: 5,
        hash: h32(0),
        parentHash: h32(4),
        timestamp: 100,
        index: 1,
        payloadId: "0x0102030405060708",
        headerRlp: new Uint8Array(0),
        blockJson: "{}",
        blockJsonFull: full,
        receiptsJson: "[]",
        txs,
        newTxCount,
      },
    ],
    state: { accounts: [], storage: [], code: [], cleared: [] },
    flashblock: { block: 5, index: 1 },
    receivedAt: 0,
    executedAt: 0,
  };
}

/** Init code whose constructor emits LOG1(TOPIC) with empty data: PUSH32 topic, PUSH1 0, PUSH1 0, LOG1, STOP. */
const LOG_INIT_CODE = hexToBytes(`0x7f${TOPIC.slice(2)}60006000a100`);

/** A devnet chain with its mempool and a manually driven sequencer. */
interface DevChain {
  chain: Chain;
  pool: TxPool;
  seq: OpDevSequencer;
  nonce: bigint;
}

async function devChain(): Promise<DevChain> {
  const dir = tmp();
  await Chain.init(dir, devnetGenesis(), { archive: true });
  const chain = Chain.open(dir, { logger: silent });
  const pool = new TxPool(chain);
  return { chain, pool, seq: new OpDevSequencer(chain, pool, 0, silent), nonce: 0n };
}

/** Adds to the mempool a creation of the LOG1-emitting contract from dev account 0; returns the contract address. */
async function addLogTx(d: DevChain): Promise<{ contract: string; hash: string }> {
  const acct = devAccounts()[0]!;
  const head = d.chain.head.header;
  const tx = createFeeMarket1559Tx(
    { chainId: d.chain.chainId, nonce: d.nonce, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 200_000n, data: LOG_INIT_CODE },
    { common: d.chain.commonAt(head.number + 1n, head.timestamp + 1n) },
  ).sign(hexToBytes(acct.privateKey as `0x${string}`));
  const contract = "0x" + Buffer.from(createAddress(hexToBytes(acct.address as `0x${string}`), d.nonce)).toString("hex");
  d.nonce++;
  const p = await d.pool.addRaw(tx.serialize());
  return { contract, hash: "0x" + Buffer.from(p.hash).toString("hex") };
}

function backendOf(d: DevChain, pending: PendingSource): RpcBackend {
  return {
    chain: d.chain,
    pool: d.pool,
    calls: undefined as unknown as RpcBackend["calls"],
    settings: { gasCap: 50_000_000n, clientVersion: "basalt/test" },
    pending,
    syncing: () => false,
  };
}

async function gaugeTotal(name: string): Promise<number> {
  const metric = register.getSingleMetric(name);
  if (metric === undefined) return 0;
  const data = await metric.get();
  return data.values.reduce((s, v) => s + v.value, 0);
}

// ---- suite ---------------------------------------------------------------------------------

describe("JSON-RPC over WebSocket", () => {
  let d: DevChain;
  const pending = new ManualPending();
  let hub: SubscriptionHub;
  let ws: RpcWsServer;
  let http: RpcHttpServer;
  let wsUrl = "";
  let httpUrl = "";
  const clients: Client[] = [];
  const servers: { close(): void }[] = [];
  const chains: Chain[] = [];
  /** What the hub's `syncing` subscriptions read (the node passes eth_syncing's status). */
  let syncStatus: false | { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint } = false;

  const connect = async (url = wsUrl): Promise<Client> => {
    const c = await Client.open(url);
    clients.push(c);
    return c;
  };
  const post = async (body: string): Promise<string> =>
    (await fetch(httpUrl, { method: "POST", headers: { "content-type": "application/json" }, body })).text();

  beforeAll(async () => {
    d = await devChain();
    chains.push(d.chain);
    const backend = backendOf(d, pending);
    const methods: MethodTable = { ...blockMethods(backend), ...nodeMethods(backend), ...httpSubscriptionMethods() };
    hub = new SubscriptionHub({ chain: d.chain, pending, pool: d.pool, syncing: () => syncStatus, logger: silent });
    ws = new RpcWsServer({ host: "127.0.0.1", port: 0, methods, hub, logger: silent });
    http = new RpcHttpServer({ host: "127.0.0.1", port: 0, methods, transport: "http", logger: silent });
    servers.push(ws, http, hub);
    wsUrl = `ws://127.0.0.1:${await ws.listen()}`;
    httpUrl = `http://127.0.0.1:${await http.listen()}/`;
  });

  afterAll(async () => {
    for (const c of clients) c.ws.terminate();
    for (const s of servers) s.close();
    for (const c of chains) await c.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("answers a request and a batch exactly as HTTP does", async () => {
    const c = await connect();
    const single = '{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}';
    c.sendRaw(single);
    const got = await c.waitFor((m) => m.json.id === 7);
    expect(got.raw).toBe(await post(single));
    const batch =
      '[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":"x","method":"nope"},{"jsonrpc":"2.0","method":"eth_chainId"}]';
    const from = c.messages.length;
    c.sendRaw(batch);
    const b = await c.waitFor(() => true, from);
    expect(b.raw).toBe(await post(batch));
    expect(Array.isArray(b.json)).toBe(true);
    // Binary frames carry UTF-8 JSON too; broken JSON gets the parse error.
    c.ws.send(Buffer.from('{"jsonrpc":"2.0","id":8,"method":"eth_chainId"}'), { binary: true });
    expect((await c.waitFor((m) => m.json.id === 8)).json.result).toBe(`0x${d.chain.chainId.toString(16)}`);
    const before = c.messages.length;
    c.sendRaw("{oops");
    expect((await c.waitFor(() => true, before)).json.error).toEqual({ code: -32700, message: "parse error" });
  });

  it("refuses eth_subscribe over HTTP and unknown or malformed subscriptions", async () => {
    const overHttp = JSON.parse(await post('{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}')) as Msg["json"];
    expect(overHttp.error).toEqual({ code: -32601, message: "notifications not supported" });
    const c = await connect();
    expect((await c.call("eth_subscribe", ["foo"])).error).toEqual({ code: -32601, message: 'no "foo" subscription in eth namespace' });
    expect((await c.call("eth_subscribe", [])).error).toEqual({ code: -32602, message: "expected subscription name as first argument" });
    expect((await c.call("eth_subscribe", ["newHeads", {}])).error?.code).toBe(-32602);
    expect((await c.call("eth_subscribe", ["logs", { topics: [[], [], [], [], []] }])).error?.code).toBe(-32602);
    const pendingLogs = await c.call("eth_subscribe", ["logs", { fromBlock: "pending" }]);
    expect(pendingLogs.error).toEqual({ code: -32602, message: "pending logs are not supported" });
    expect(hub.count()).toBe(0);
  });

  it("newHeads: one header per sealed block; eth_unsubscribe answers true, then false", async () => {
    const c = await connect();
    const id = await c.subscribe(["newHeads"]);
    expect(id).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/);
    const n = await d.seq.sealOne();
    const header = (await c.nextNotification(id)) as Record<string, unknown>;
    const block = d.chain.getBlockByNumber(n) as Block;
    expect(header).toEqual(JSON.parse(JSON.stringify(formatHeader(block.header))));
    expect(header.number).toBe(`0x${n.toString(16)}`);
    expect((await c.call("eth_unsubscribe", [id])).result).toBe(true);
    expect((await c.call("eth_unsubscribe", [id])).result).toBe(false);
    await d.seq.sealOne();
    // No more headers after the unsubscribe (a request round trip orders us after the seal).
    await c.call("eth_chainId");
    expect(c.notifications(id)).toHaveLength(1);
  });

  it("syncing: the status at once, then each change of it (reth's form), not every block", async () => {
    const c = await connect();
    const id = await c.subscribe(["syncing"]);
    await waitUntil("the first status", WAIT_MS, () => c.notifications(id).length === 1);
    expect(c.notifications(id)).toEqual([false]);
    syncStatus = { startingBlock: 1n, currentBlock: 2n, highestBlock: 90n };
    await d.seq.sealOne();
    await waitUntil("the syncing status", WAIT_MS, () => c.notifications(id).length === 2);
    expect(c.notifications(id)[1]).toEqual({ syncing: true, startingBlock: "0x1", currentBlock: "0x2", highestBlock: "0x5a" });
    await d.seq.sealOne();
    syncStatus = false;
    await d.seq.sealOne();
    await waitUntil("the end of syncing", WAIT_MS, () => c.notifications(id).length === 3);
    expect(c.notifications(id)[2]).toBe(false);
    await d.seq.sealOne();
    await c.call("eth_chainId");
    expect(c.notifications(id)).toHaveLength(3);
    expect((await c.call("eth_unsubscribe", [id])).result).toBe(true);
  });

  it("logs: matching filters get the block's logs, others nothing; newPendingTransactions gets the hash", async () => {
    const c = await connect();
    const pendingId = await c.subscribe(["newPendingTransactions"]);
    const pendingFull = await c.subscribe(["newPendingTransactions", true]);
    const heads = await c.subscribe(["newHeads"]);
    const { contract, hash } = await addLogTx(d);
    const all = await c.subscribe(["logs"]);
    const byAddress = await c.subscribe(["logs", { address: [contract] }]);
    const byTopic = await c.subscribe(["logs", { topics: [[OTHER_TOPIC, TOPIC]] }]);
    const wrongAddress = await c.subscribe(["logs", { address: a20(0x1234) }]);
    const wrongTopic = await c.subscribe(["logs", { address: contract, topics: [OTHER_TOPIC] }]);
    const past = await c.subscribe(["logs", { fromBlock: "0x1", toBlock: "0x1" }]);
    expect(await c.nextNotification(pendingId)).toBe(hash);
    expect(((await c.nextNotification(pendingFull)) as { hash: string }).hash).toBe(hash);

    const n = await d.seq.sealOne();
    await c.nextNotification(heads);
    const log = (await c.nextNotification(byAddress)) as RpcLog;
    expect(log.address).toBe(contract);
    expect(log.topics).toEqual([TOPIC]);
    expect(log.transactionHash).toBe(hash);
    expect(log.blockNumber).toBe(`0x${n.toString(16)}`);
    expect(log.removed).toBe(false);
    expect(await c.nextNotification(all)).toEqual(log);
    expect(await c.nextNotification(byTopic)).toEqual(log);
    await c.call("eth_chainId");
    expect(c.notifications(wrongAddress)).toHaveLength(0);
    expect(c.notifications(wrongTopic)).toHaveLength(0);
    expect(n).toBeGreaterThan(1n);
    expect(c.notifications(past)).toHaveLength(0);
  });

  it("flashblocks kinds follow the pending snapshots (only what the latest flashblock added)", async () => {
    const c = await connect();
    const blocks = await c.subscribe(["newFlashblocks"]);
    const logsAll = await c.subscribe(["pendingLogs"]);
    const logsFiltered = await c.subscribe(["pendingLogs", { address: a20(0xaa), topics: [TOPIC] }]);
    const hashes = await c.subscribe(["newFlashblockTransactions"]);
    const hashesFalse = await c.subscribe(["newFlashblockTransactions", false]);
    const full = await c.subscribe(["newFlashblockTransactions", true]);
    const filtered = await c.subscribe(["newFlashblockTransactions", { address: a20(0xbb) }]);

    const tx0 = pendingTx(0, [pendingLog(a20(0xaa), [TOPIC], h32(0x1000), 0, 0)]);
    const tx1 = pendingTx(1, [pendingLog(a20(0xaa), [TOPIC], h32(0x1001), 1, 1), pendingLog(a20(0xbb), [OTHER_TOPIC], h32(0x1001), 1, 2)]);
    const tx2 = pendingTx(2, [pendingLog(a20(0xcc), [TOPIC], h32(0x1002), 2, 3)]);
    const s = snapshot([tx0, tx1, tx2], 2, '{"hash":"0x00","number":"0x5",  "transactions":[]}');
    pending.emit(s);

    await c.waitFor((m) => m.json.params?.subscription === blocks);
    const raw = c.messages.find((m) => m.json.params?.subscription === blocks)!.raw;
    // The pre-rendered JSON is spliced in verbatim (its odd spacing survives).
    const expected = `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${blocks}",`;
    expect(raw).toBe(`${expected}"result":{"hash":"0x00","number":"0x5",  "transactions":[]}}}`);

    await c.waitFor(() => c.notifications(logsAll).length >= 3 && c.notifications(filtered).length >= 1 && c.notifications(full).length >= 2);
    expect(c.notifications(logsAll)).toEqual([...tx1.logs, ...tx2.logs]);
    expect(c.notifications(hashes)).toEqual([tx1.hash, tx2.hash]);
    expect(c.notifications(hashesFalse)).toEqual([tx1.hash, tx2.hash]);
    const fullItems = c.notifications(full) as Record<string, unknown>[];
    expect(fullItems.map((t) => t.hash)).toEqual([tx1.hash, tx2.hash]);
    expect(fullItems[0]).toMatchObject({
      ...(JSON.parse(tx1.txJson) as object),
      logs: tx1.logs,
      gasUsed: "0x5208",
      status: "0x1",
      cumulativeGasUsed: "0xa410",
      contractAddress: null,
      logsBloom: "0x" + "00".repeat(256),
    });
    const filteredItems = c.notifications(filtered) as Record<string, unknown>[];
    expect(filteredItems.map((t) => t.hash)).toEqual([tx1.hash]);
    expect(filteredItems[0]!.logs).toEqual(tx1.logs); // all logs of a matching transaction
    await c.call("eth_chainId");
    expect(c.notifications(logsFiltered)).toEqual([tx1.logs[0]]);

    // A flashblock that added nothing: a new block notification only.
    pending.emit(snapshot([tx0, tx1, tx2], 0));
    await c.waitFor(() => c.notifications(blocks).length === 2);
    await c.call("eth_chainId");
    expect(c.notifications(hashes)).toHaveLength(2);
    expect(c.notifications(logsAll)).toHaveLength(3);
  });

  it("a closed connection takes its subscriptions with it", async () => {
    for (const c of clients.splice(0)) await c.close();
    await waitUntil("subscriptions to end", WAIT_MS, () => hub.count() === 0 && ws.connectionCount === 0);
    const c = await connect();
    await c.subscribe(["newHeads"]);
    await c.subscribe(["logs", { address: a20(1) }]);
    await c.subscribe(["newFlashblocks"]);
    expect(hub.count()).toBe(3);
    expect(await gaugeTotal("basalt_rpc_ws_subscriptions")).toBe(3);
    expect(await gaugeTotal("basalt_rpc_ws_connections")).toBe(1);
    await c.close();
    await waitUntil("subscriptions to end", WAIT_MS, () => hub.count() === 0);
    expect(await gaugeTotal("basalt_rpc_ws_subscriptions")).toBe(0);
    await waitUntil("connection gauge", WAIT_MS, async () => (await gaugeTotal("basalt_rpc_ws_connections")) === 0);
  });

  it("closes the connection on a message above the size limit", async () => {
    const small = new RpcWsServer({ host: "127.0.0.1", port: 0, methods: { echo: (p) => p[0] }, maxMessageBytes: 1024, logger: silent });
    servers.push(small);
    const c = await connect(`ws://127.0.0.1:${await small.listen()}`);
    expect((await c.call("echo", ["x".repeat(900)])).result).toBe("x".repeat(900));
    c.sendRaw(JSON.stringify({ jsonrpc: "2.0", id: 99, method: "echo", params: ["x".repeat(2000)] }));
    const closed = await c.closed;
    expect(closed.code).toBe(1006); // uWS drops the socket without a close frame
    expect(c.messages.some((m) => m.json.id === 99)).toBe(false);
    expect(small.connectionCount).toBe(0);
  });

  it("closes a client that does not read its notifications (slow consumer)", async () => {
    const source = new ManualPending();
    const slowHub = new SubscriptionHub({ chain: d.chain, pending: source, logger: silent });
    const slow = new RpcWsServer({ host: "127.0.0.1", port: 0, methods: {}, hub: slowHub, maxBufferedBytes: 256 * 1024, logger: silent });
    servers.push(slow, slowHub);
    const c = await connect(`ws://127.0.0.1:${await slow.listen()}`);
    await c.subscribe(["newFlashblocks"]);
    const before = await gaugeTotal("basalt_rpc_ws_slow_consumer_disconnects_total");
    // Stop reading: the kernel buffers fill, then the server's backpressure grows past the bound.
    (c.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const big = snapshot([], 0, JSON.stringify({ filler: "f".repeat(512 * 1024) }));
    for (let i = 0; i < 400 && slowHub.count() > 0; i++) {
      source.emit(big);
      await new Promise((r) => setImmediate(r));
    }
    expect(slowHub.count()).toBe(0);
    expect(slow.connectionCount).toBe(0);
    expect(await gaugeTotal("basalt_rpc_ws_slow_consumer_disconnects_total")).toBe(before + 1);
    (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const closed = await Promise.race([c.closed, new Promise<{ code: number }>((r) => setTimeout(() => r({ code: -1 }), WAIT_MS))]);
    expect(closed).toEqual({ code: 1008, reason: "slow consumer: more than 262144 bytes unread" });
  });

  it("logs of blocks removed by a reorg come first with removed: true, then the new head", async () => {
    const r = await devChain();
    const s = await devChain();
    chains.push(r.chain, s.chain);
    const rPending = new ManualPending();
    const rHub = new SubscriptionHub({ chain: r.chain, pending: rPending, logger: silent });
    const rWs = new RpcWsServer({ host: "127.0.0.1", port: 0, methods: {}, hub: rHub, logger: silent });
    servers.push(rWs, rHub);
    const c = await connect(`ws://127.0.0.1:${await rWs.listen()}`);
    const logs = await c.subscribe(["logs"]);
    const heads = await c.subscribe(["newHeads"]);
    const { contract } = await addLogTx(r);
    await r.seq.sealOne();
    const mined = (await c.nextNotification(logs)) as RpcLog;
    expect(mined).toMatchObject({ address: contract, removed: false });
    const oldHead = (await c.nextNotification(heads)) as { hash: string };

    // A competing block 1 without the transaction becomes canonical.
    await s.seq.sealOne();
    const sibling = s.chain.getBlockByNumber(1n) as Block;
    await r.chain.insertBlock(sibling);
    await r.chain.setHead(sibling.hash());
    const removed = (await c.nextNotification(logs, 1)) as RpcLog;
    expect(removed).toEqual({ ...mined, removed: true });
    const newHead = (await c.nextNotification(heads, 1)) as { hash: string; number: string };
    expect(newHead.hash).toBe("0x" + Buffer.from(sibling.hash()).toString("hex"));
    expect(newHead.hash).not.toBe(oldHead.hash);
    expect(newHead.number).toBe("0x1");
    await c.call("eth_chainId");
    expect(c.notifications(logs)).toHaveLength(2);
  });
});

describe("basalt node --ws (startNode)", () => {
  it("serves the public methods and eth_subscribe on the WebSocket port, and stops it", async () => {
    const datadir = mkdtempSync(path.join(os.tmpdir(), "basalt-ws-node-"));
    const opts = {
      ...tableDefaults(),
      datadir,
      network: "devnet",
      archive: true,
      "http.addr": "127.0.0.1",
      "http.port": 0,
      "authrpc.addr": "127.0.0.1",
      "authrpc.port": 0,
      ws: true,
      "ws.addr": "127.0.0.1",
      "ws.port": 0,
      "dev.block-time": 1,
      "flashblocks.interval": 0,
      // Any free port for the rollup RPC: another node may hold 7545.
      "rollup.addr": "127.0.0.1",
      "rollup.port": 0,
      // No peer-to-peer networks: other tests may hold 9222/30303.
      "p2p.disable": true,
      "p2p.el.disable": true,
    } as BasaltOptions;
    const node = await startNode(opts, silent, false);
    let c: Client | undefined;
    try {
      expect(node.wsPort).toBeGreaterThan(0);
      c = await Client.open(`ws://127.0.0.1:${node.wsPort}`);
      expect((await c.call("eth_chainId")).result).toBe(`0x${node.chain.chainId.toString(16)}`);
      const id = await c.subscribe(["newHeads"]);
      const head = (await c.nextNotification(id)) as { number: string };
      expect(BigInt(head.number)).toBeGreaterThan(0n);
      const res = await fetch(`http://127.0.0.1:${node.httpPort}/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}',
      });
      expect(((await res.json()) as Msg["json"]).error).toEqual({ code: -32601, message: "notifications not supported" });
    } finally {
      await node.stop();
      rmSync(datadir, { recursive: true, force: true });
    }
    expect((await c?.closed)?.code).toBe(1001);
  });
});
