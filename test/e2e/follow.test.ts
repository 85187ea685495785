/**
 * End-to-end: follow mode (`--follow-rpc`) and transaction forwarding (`--sequencer-http`) with
 * real `basalt node` processes on the devnet.
 * (a) A sequencer (1 s blocks) and a follower that forwards to it: transactions sent to the
 *     follower reach the sequencer, get sealed, and the follower's blocks, receipts and state
 *     equal the sequencer's; sequencer errors reach the caller unchanged; no dev_* methods.
 * (b) Reorg: a sequencer driven through the Engine API moves its head from branch A to a longer
 *     branch B from the same parent; the follower reorgs and A's transaction and receipt vanish.
 * (c) A source of another chain (other chain id) is refused at start with a non-zero exit.
 * (d) A ws:// source: new heads arrive by eth_subscribe("newHeads") (the poll interval is far
 *     longer than the test), and following survives a dropped socket.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Common } from "@ethereumjs/common";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis, type DevAccount } from "../../src/chain/devnet.js";
import { SEQUENCER_FEE_VAULT_ADDRESS } from "../../src/chain/op/predeploys.js";
import { makeTempDir, removeDir, runCli, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { getFreePorts, LOCALHOST } from "../helpers/ports.js";
import { engineCall, rpcCall, rpcResult, type Json } from "../helpers/rpc.js";
import { l1InfoTx } from "../helpers/opDeposits.js";
import { pollUntil } from "../helpers/poll.js";

type Obj = { [k: string]: Json };

const GWEI = 10n ** 9n;
/** Poll interval of the followers: short, so the test waits little. */
const FAST_POLL_MS = "100";
const accounts = devAccounts();
const common: Common = commonFromGenesis(devnetGenesis(), "devnet");


function hex(n: bigint | number): string {
  return `0x${n.toString(16)}`;
}


/** A signed EIP-1559 transfer of `from`, as raw 0x hex. */
function transfer(from: DevAccount | Uint8Array, nonce: bigint, to: string, value: bigint): string {
  const key = from instanceof Uint8Array ? from : hexToBytes(from.privateKey as `0x${string}`);
  const tx = createFeeMarket1559Tx(
    { chainId: common.chainId(), nonce, maxPriorityFeePerGas: GWEI, maxFeePerGas: 20n * GWEI, gasLimit: 21_000n, to: to as `0x${string}`, value },
    { common },
  ).sign(key);
  return bytesToHex(tx.serialize());
}

const txHash = (raw: string): string => bytesToHex(keccak_256(hexToBytes(raw as `0x${string}`)));

const head = async (url: string): Promise<Obj> => (await rpcResult(url, "eth_getBlockByNumber", ["latest", false])) as Obj;

/** Waits until `follower`'s head hash equals `hash`. */
async function waitHead(follower: NodeHandle, hash: string, timeoutMs = 15_000): Promise<void> {
  await pollUntil(`follower head ${hash}\n${follower.outputTail(20)}`, timeoutMs, async () => ((await head(follower.url)).hash === hash ? true : undefined));
}

const tempDirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await makeTempDir("basalt-e2e-follow-");
  tempDirs.push(d);
  return d;
}

afterAll(async () => {
  await stopAllProcesses();
  for (const d of tempDirs) await removeDir(d);
});

describe("follow mode with sequencer forwarding (e2e)", () => {
  let seq: NodeHandle;
  let fol: NodeHandle;

  beforeAll(async () => {
    seq = await startNode({ datadir: await tempDir(), args: ["--network", "devnet", "--dev.block-time", "1"] });
    fol = await startNode({
      datadir: await tempDir(),
      args: ["--network", "devnet", "--follow-rpc", seq.url, "--sequencer-http", seq.url, "--follow.poll-interval", FAST_POLL_MS],
    });
  });

  it("produces no blocks of its own and serves no dev_* methods", async () => {
    const r = await rpcCall(fol.url, "dev_sendDeposit", [{ from: accounts[0]!.address, to: accounts[1]!.address, mint: "0x1", value: "0x1", gas: "0x5208" }]);
    expect(r.error?.code).toBe(-32601);
    // Every block the follower has is the sequencer's.
    const h = await head(fol.url);
    const same = (await rpcResult(seq.url, "eth_getBlockByNumber", [h.number, false])) as Obj;
    expect(h.hash).toBe(same.hash);
  });

  it("forwards transactions to the sequencer and ends with the sequencer's blocks, receipts and state", async () => {
    const recipient = `0x${"5e".repeat(20)}`;
    const raws = [
      transfer(accounts[0]!, 0n, recipient, 1n),
      transfer(accounts[0]!, 1n, recipient, 2n),
      transfer(accounts[1]!, 0n, recipient, 3n),
    ];
    const hashes: string[] = [];
    for (const raw of raws) {
      const h = (await rpcResult(fol.url, "eth_sendRawTransaction", [raw])) as string;
      expect(h).toBe(txHash(raw));
      hashes.push(h);
      // Kept locally too: the follower knows it right away (its pool, or already its chain).
      expect(await rpcResult(fol.url, "eth_getTransactionByHash", [h])).not.toBeNull();
    }
    const receipts = await Promise.all(
      hashes.map((h) =>
        pollUntil(`receipt of ${h} on the follower`, 20_000, async () => {
          const r = await rpcResult(fol.url, "eth_getTransactionReceipt", [h]);
          return r === null ? undefined : (r as Obj);
        }),
      ),
    );
    for (const r of receipts) expect(r.status).toBe("0x1");
    // Let the follower reach the block the sequencer is at now, then compare everything up to it.
    const target = await head(seq.url);
    await waitHead(fol, target.hash as string);
    const top = BigInt(target.number as string);
    for (let n = 0n; n <= top; n++) {
      const [a, b] = await Promise.all([seq, fol].map((node) => rpcResult(node.url, "eth_getBlockByNumber", [hex(n), true])));
      expect(b).toEqual(a);
      const [ra, rb] = await Promise.all([seq, fol].map((node) => rpcResult(node.url, "eth_getBlockReceipts", [hex(n)])));
      expect(rb).toEqual(ra);
    }
    for (const h of hashes) {
      const [a, b] = await Promise.all([seq, fol].map((node) => rpcResult(node.url, "eth_getTransactionReceipt", [h])));
      expect(b).toEqual(a);
    }
    for (const addr of [recipient, accounts[0]!.address, accounts[1]!.address, SEQUENCER_FEE_VAULT_ADDRESS]) {
      const [a, b] = await Promise.all([seq, fol].map((node) => rpcResult(node.url, "eth_getBalance", [addr, hex(top)])));
      expect(b).toBe(a);
    }
    expect(await rpcResult(fol.url, "eth_getBalance", [recipient, hex(top)])).toBe("0x6");
    expect(await rpcResult(fol.url, "eth_syncing", [])).toBe(false);
  });

  it("returns the sequencer's JSON-RPC error unchanged", async () => {
    const broke = keccak_256(new TextEncoder().encode("an unfunded key"));
    const raw = transfer(broke, 0n, accounts[0]!.address, 1n);
    const direct = await rpcCall(seq.url, "eth_sendRawTransaction", [raw]);
    const forwarded = await rpcCall(fol.url, "eth_sendRawTransaction", [raw]);
    expect(direct.error?.message).toMatch(/insufficient funds/);
    expect(forwarded.error).toEqual(direct.error);
  });
});


describe("follow mode: reorg of the unsafe head (e2e)", () => {
  let seq: NodeHandle;
  let builder: NodeHandle;
  let fol: NodeHandle;
  const L1_HASH = keccak_256(new TextEncoder().encode("follow test L1 block"));

  beforeAll(async () => {
    [seq, builder] = await Promise.all([0, 1].map(async () => startNode({ datadir: await tempDir(), args: ["--network", "devnet", "--dev.block-time", "0"] })));
    fol = await startNode({ datadir: await tempDir(), args: ["--network", "devnet", "--follow-rpc", seq.url, "--follow.poll-interval", FAST_POLL_MS] });
  });

  const engine = async (node: NodeHandle, method: string, params: Json[]): Promise<Obj> => {
    const r = await engineCall(node.engineUrl, node.jwtSecret, method, params);
    if (r.error !== undefined) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    return r.result as Obj;
  };

  /** Builds a block on `parent` at `node` from forced transactions; returns the payload and its beacon root. */
  const build = async (node: NodeHandle, parent: string, timestamp: bigint, txs: string[]): Promise<{ payload: Obj; beaconRoot: string }> => {
    const fcu = await engine(node, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: parent, safeBlockHash: parent, finalizedBlockHash: parent },
      {
        timestamp: hex(timestamp),
        prevRandao: bytesToHex(keccak_256(L1_HASH)),
        suggestedFeeRecipient: SEQUENCER_FEE_VAULT_ADDRESS,
        withdrawals: [],
        parentBeaconBlockRoot: bytesToHex(keccak_256(new Uint8Array([1]))),
        transactions: txs,
        noTxPool: true,
        gasLimit: "0x1c9c380",
        eip1559Params: "0x000000fa00000006",
        minBaseFee: "0x989680",
      },
    ]);
    const env = await engine(node, "engine_getPayloadV4", [fcu.payloadId as string]);
    return { payload: env.executionPayload as Obj, beaconRoot: env.parentBeaconBlockRoot as string };
  };

  /** Hands a payload to `node` (engine_newPayloadV4); it must be VALID. */
  const deliver = async (node: NodeHandle, p: { payload: Obj; beaconRoot: string }): Promise<void> => {
    const st = await engine(node, "engine_newPayloadV4", [p.payload, [], p.beaconRoot, []]);
    expect(st).toEqual({ status: "VALID", latestValidHash: p.payload.blockHash, validationError: null });
  };

  const setHead = async (node: NodeHandle, hash: string): Promise<void> => {
    const fcu = await engine(node, "engine_forkchoiceUpdatedV3", [{ headBlockHash: hash, safeBlockHash: hash, finalizedBlockHash: hash }, null]);
    expect((fcu.payloadStatus as Obj).status).toBe("VALID");
  };

  it("follows branch A, then reorgs to the longer branch B: A's transaction and receipt vanish, B's are served", async () => {
    const genesis = await head(seq.url);
    const parent = genesis.hash as string;
    const t0 = BigInt(genesis.timestamp as string);
    const recipientA = `0x${"aa".repeat(20)}`;
    const recipientB = `0x${"bb".repeat(20)}`;
    const rawA = transfer(accounts[0]!, 0n, recipientA, 7n);
    const rawB = transfer(accounts[1]!, 0n, recipientB, 9n);

    // Branch A (one block) on the sequencer; the follower follows it.
    const a1 = await build(seq, parent, t0 + 2n, [l1InfoTx(0n, L1_HASH), rawA]);
    await setHead(seq, a1.payload.blockHash as string);
    await waitHead(fol, a1.payload.blockHash as string);
    const receiptA = (await rpcResult(fol.url, "eth_getTransactionReceipt", [txHash(rawA)])) as Obj;
    expect(receiptA.blockHash).toBe(a1.payload.blockHash);
    expect(await rpcResult(fol.url, "eth_getBalance", [recipientA, "latest"])).toBe("0x7");

    // Branch B (two blocks, same parent) built elsewhere, then delivered and made the head. (basalt
    // executes a payload only on a canonical parent, so the sequencer takes B1 as head before B2.)
    const b1 = await build(builder, parent, t0 + 4n, [l1InfoTx(0n, L1_HASH), rawB]);
    const b2 = await build(builder, b1.payload.blockHash as string, t0 + 6n, [l1InfoTx(1n, L1_HASH)]);
    await deliver(seq, b1);
    await setHead(seq, b1.payload.blockHash as string);
    await deliver(seq, b2);
    await setHead(seq, b2.payload.blockHash as string);
    await waitHead(fol, b2.payload.blockHash as string);

    expect(fol.stdout()).toMatch(/followed the source's reorg/);
    expect(((await rpcResult(fol.url, "eth_getBlockByNumber", ["0x1", false])) as Obj).hash).toBe(b1.payload.blockHash);
    expect(await rpcResult(fol.url, "eth_getTransactionByHash", [txHash(rawA)])).toBeNull();
    expect(await rpcResult(fol.url, "eth_getTransactionReceipt", [txHash(rawA)])).toBeNull();
    expect(await rpcResult(fol.url, "eth_getBalance", [recipientA, "latest"])).toBe("0x0");
    const receiptB = (await rpcResult(fol.url, "eth_getTransactionReceipt", [txHash(rawB)])) as Obj;
    expect(receiptB.blockHash).toBe(b1.payload.blockHash);
    expect(receiptB).toEqual(await rpcResult(seq.url, "eth_getTransactionReceipt", [txHash(rawB)]));
    const blockReceipts = (await rpcResult(fol.url, "eth_getBlockReceipts", ["0x1"])) as Obj[];
    expect(blockReceipts.map((r) => r.transactionHash)).not.toContain(txHash(rawA));
    expect(blockReceipts.map((r) => r.transactionHash)).toContain(txHash(rawB));
    const logs = (await rpcResult(fol.url, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest" }])) as Obj[];
    expect(logs.map((l) => l.transactionHash)).not.toContain(txHash(rawA));
    expect(await rpcResult(fol.url, "eth_getBalance", [recipientB, "latest"])).toBe("0x9");
    // The sequencer's safe/finalized (set by its forkchoice) reach the follower once the blocks are local.
    await pollUntil("follower's finalized block", 15_000, async () => {
      const f = (await rpcResult(fol.url, "eth_getBlockByNumber", ["finalized", false])) as Obj | null;
      return f?.hash === b2.payload.blockHash ? true : undefined;
    });
  });
});

describe("follow mode: refusing a source of another chain (e2e)", () => {
  let other: NodeHandle;

  beforeAll(async () => {
    const dir = await tempDir();
    const genesis = devnetGenesis();
    const file = path.join(dir, "other-genesis.json");
    await writeFile(file, JSON.stringify({ ...genesis, config: { ...genesis.config, chainId: 845338 } }));
    other = await startNode({ datadir: path.join(dir, "data"), args: ["--network", file] });
  });

  it("exits non-zero naming both chain ids", async () => {
    const [http, auth] = await getFreePorts(2);
    const args = ["node", "--datadir", await tempDir(), "--network", "devnet", "--follow-rpc", other.url];
    args.push("--http.port", String(http), "--authrpc.port", String(auth));
    const r = await runCli(args, { timeoutMs: 20_000 });
    expect(r.timedOut).toBe(false);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--follow-rpc http:\/\/127\.0\.0\.1:\d+ serves chain id 845338, but this node's chain id is 845337/);
  });
});

describe("follow mode over WebSocket (e2e)", () => {
  let seq: NodeHandle;
  let fol: NodeHandle;
  let wss: WebSocketServer;
  const clients = new Set<WebSocket>();
  let subscriptions = 0;
  let headTimer: NodeJS.Timeout | undefined;

  /**
   * A minimal ws JSON-RPC front of the sequencer's HTTP endpoint: requests are relayed;
   * eth_subscribe("newHeads") is served by announcing each new sequencer head.
   */
  beforeAll(async () => {
    seq = await startNode({ datadir: await tempDir(), args: ["--network", "devnet", "--dev.block-time", "1"] });
    const [port] = await getFreePorts(1);
    wss = new WebSocketServer({ host: LOCALHOST, port });
    await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
    const subs = new Map<WebSocket, string>();
    wss.on("connection", (ws) => {
      clients.add(ws);
      ws.on("close", () => {
        clients.delete(ws);
        subs.delete(ws);
      });
      ws.on("message", async (data) => {
        const req = JSON.parse(String(data)) as { id: number; method: string; params: Json[] };
        if (req.method === "eth_subscribe") {
          subscriptions++;
          const id = hex(0xabc0 + subscriptions);
          subs.set(ws, id);
          ws.send(JSON.stringify({ jsonrpc: "2.0", id: req.id, result: id }));
          return;
        }
        const res = await rpcCall(seq.url, req.method, req.params);
        ws.send(JSON.stringify({ ...res, id: req.id }));
      });
    });
    let last = "";
    headTimer = setInterval(() => {
      head(seq.url).then(
        (h) => {
          if (h.hash === last) return;
          last = h.hash as string;
          for (const [ws, id] of subs) ws.send(JSON.stringify({ jsonrpc: "2.0", method: "eth_subscription", params: { subscription: id, result: h } }));
        },
        () => undefined,
      );
    }, 100);
    // Polling every 10 minutes: within this test only newHeads can bring new blocks.
    const args = ["--network", "devnet", "--follow-rpc", `ws://${LOCALHOST}:${port}`, "--follow.poll-interval", "600000"];
    fol = await startNode({ datadir: await tempDir(), args });
  });

  afterAll(async () => {
    if (headTimer !== undefined) clearInterval(headTimer);
    for (const c of clients) c.terminate();
    await new Promise<void>((resolve) => wss?.close(() => resolve()));
  });

  it("syncs on newHeads and resubscribes after the socket drops", async () => {
    const first = BigInt((await head(seq.url)).number as string) + 2n;
    const reached = async (n: bigint): Promise<true | undefined> => (BigInt((await head(fol.url)).number as string) >= n ? true : undefined);
    await pollUntil(`follower at block ${first}\n${fol.outputTail(20)}`, 15_000, () => reached(first));
    expect(subscriptions).toBe(1);
    for (const c of clients) c.terminate();
    await pollUntil("a second subscription", 15_000, async () => (subscriptions >= 2 ? true : undefined));
    const after = BigInt((await head(seq.url)).number as string) + 2n;
    await pollUntil(`follower at block ${after} after the reconnect\n${fol.outputTail(20)}`, 15_000, () => reached(after));
    const n = hex(after);
    const [a, b] = await Promise.all([seq, fol].map((node) => rpcResult(node.url, "eth_getBlockByNumber", [n, true])));
    expect(b).toEqual(a);
  });
});
