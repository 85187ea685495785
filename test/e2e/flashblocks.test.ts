/**
 * End-to-end pre-confirmations with two real processes, the setup an application developer
 * runs locally:
 * - a devnet sequencer (2 s blocks, a flashblock every 200 ms on its flashblocks server);
 * - a follower: `--follow-rpc` to the sequencer (blocks executed and checked), `--flashblocks-url`
 *   to its stream (pending state), `--sequencer-http` (transactions forwarded), WebSocket RPC on.
 *
 * A transaction sent to the follower is pre-confirmed in the follower's `pending` answers —
 * block, receipts, balances, nonce, calls, logs, subscriptions — before the block is sealed,
 * with the same partial-block hash the sequencer published; after sealing the canonical answers
 * replace the pending ones. Then the faults: the producer killed and restarted, the follower
 * restarted mid-block.
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { commonFromGenesis } from "../../src/chain/chainSpec.js";
import { devAccounts, devnetGenesis } from "../../src/chain/devnet.js";
import { decodeFlashblockFrame, type FlashblocksPayloadV1 } from "../../src/flashblocks/codec.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { pollUntil, type PollOptions } from "../helpers/poll.js";
import { getFreePorts } from "../helpers/ports.js";
import { postRaw, rpcResult, type Json } from "../helpers/rpc.js";

type Obj = Record<string, Json>;
const accounts = devAccounts();
const common = commonFromGenesis(devnetGenesis());
const GWEI = 10n ** 9n;
/** How this file polls: every 25 ms (pre-confirmations move fast), an RPC error counting as "not yet". */
const POLL: PollOptions = { intervalMs: 25, retryErrors: true };

function transfer(from: number, nonce: bigint, to: string, value: bigint): { raw: string; hash: string } {
  const tx = createFeeMarket1559Tx(
    { chainId: 845337n, nonce, maxFeePerGas: 10n * GWEI, maxPriorityFeePerGas: GWEI / 1000n, gasLimit: 21_000n, to: hexToBytes(to as `0x${string}`), value },
    { common },
  ).sign(hexToBytes(accounts[from]!.privateKey as `0x${string}`));
  return { raw: "0x" + Buffer.from(tx.serialize()).toString("hex"), hash: "0x" + Buffer.from(tx.hash()).toString("hex") };
}

/** Several reads in one batch; retried until they describe the same pending block (the worker may publish between two reads). */
async function pendingView(url: string, txHash: string, from: string, to: string): Promise<Obj[] | undefined> {
  const calls = [
    ["eth_getBlockByNumber", ["pending", false]],
    ["eth_getTransactionReceipt", [txHash]],
    ["eth_getBlockReceipts", ["pending"]],
    ["eth_blockNumber", []],
    ["eth_getBalance", [to, "pending"]],
    ["eth_getTransactionCount", [from, "pending"]],
    ["eth_getTransactionByHash", [txHash]],
    ["eth_getBlockTransactionCountByNumber", ["pending"]],
    ["eth_getBalance", [to, "latest"]],
  ];
  const body = JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params })));
  const r = await postRaw(url, body);
  const out = (JSON.parse(r.body) as { id: number; result: Json }[]).sort((a, b) => a.id - b.id).map((x) => x.result as Obj);
  const [block, receipt] = out;
  if (receipt === null || block === null) return undefined;
  if (receipt!.blockHash !== block!.hash) return undefined;
  // The head may move between two entries of the batch (an import completing): take a view where it did not.
  if (BigInt(block!.number as string) !== BigInt(out[3] as unknown as string) + 1n) return undefined;
  return out;
}

/** Waits until the node serves pre-confirmed state (its pending block is ahead of latest): its stream is live. */
async function livePending(url: string, ms = 40_000): Promise<void> {
  await pollUntil("a live pending block", ms, async () => {
    const [p, l] = await Promise.all([rpcResult(url, "eth_getBlockByNumber", ["pending", false]), rpcResult(url, "eth_blockNumber")]);
    return BigInt((p as Obj).number as string) > BigInt(l as string) ? true : undefined;
  }, POLL);
}

describe("flashblocks end to end: sequencer + follower", () => {
  const dirs: string[] = [];
  let seq: NodeHandle;
  let follower: NodeHandle;
  let seqWs: string;
  let followerWs: string;
  let fbPort: string;
  const frames: FlashblocksPayloadV1[] = [];
  let stream: WebSocket | undefined;

  const startSequencer = async (datadir: string): Promise<NodeHandle> =>
    startNode({ datadir, args: ["--dev.block-time", "2", "--flashblocks.interval", "200", "--ws", "--ws.port", seqWs.split(":")[2]!, "--flashblocks.port", fbPort] });
  const startFollower = async (datadir: string): Promise<NodeHandle> =>
    startNode({
      datadir,
      args: ["--follow-rpc", seqWs, "--flashblocks-url", seq.flashblocksUrl, "--sequencer-http", seq.url, "--ws", "--ws.port", followerWs.split(":")[2]!, "--flashblocks.interval", "0"],
    });

  beforeAll(async () => {
    const [p1, p2, p3] = await getFreePorts(3);
    seqWs = `ws://127.0.0.1:${p1}`;
    followerWs = `ws://127.0.0.1:${p2}`;
    fbPort = String(p3);
    dirs.push(await makeTempDir("basalt-e2e-fb-seq-"), await makeTempDir("basalt-e2e-fb-fol-"));
    seq = await startSequencer(dirs[0]!);
    follower = await startFollower(dirs[1]!);
    // The test watches the sequencer's stream too, to compare hashes with what it published.
    stream = new WebSocket(seq.flashblocksUrl);
    stream.on("message", (d: Buffer, binary: boolean) => frames.push(decodeFlashblockFrame(binary ? new Uint8Array(d) : d.toString("utf8"))));
    await pollUntil("the follower to import a block", 20_000, async () => (BigInt((await rpcResult(follower.url, "eth_blockNumber")) as string) >= 1n ? true : undefined), POLL);
    await livePending(follower.url);
  }, 90_000);

  afterAll(async () => {
    stream?.terminate();
    await stopAllProcesses();
    for (const d of dirs) await removeDir(d);
  });

  it("pre-confirms a transaction sent to the follower in every pending answer before the block is sealed", async () => {
    const to = "0x" + "ab".repeat(20);
    const from = accounts[3]!.address.toLowerCase();
    const nonce = BigInt((await rpcResult(follower.url, "eth_getTransactionCount", [from, "latest"])) as string);
    const { raw, hash } = transfer(3, nonce, to, 12_345n);
    expect(await rpcResult(follower.url, "eth_sendRawTransaction", [raw])).toBe(hash);

    const view = await pollUntil("the transaction in the follower's pending block", 20_000, () => pendingView(follower.url, hash, from, to), POLL);
    const [block, receipt, receipts, latestHex, balance, count, tx, txCount, latestBalance] = view as [Obj, Obj, Obj[], string, string, string, Obj, string, string];
    const latest = BigInt(latestHex as unknown as string);
    // Pending: the block being built, not yet sealed.
    expect(BigInt(block.number as string)).toBe(latest + 1n);
    expect(BigInt(receipt.blockNumber as string)).toBe(latest + 1n);
    expect(receipt.status).toBe("0x1");
    expect((block.transactions as string[]).includes(hash)).toBe(true);
    expect(BigInt(txCount as unknown as string)).toBe(BigInt((block.transactions as string[]).length));
    expect(receipts.map((r) => r.transactionHash)).toEqual(block.transactions);
    expect(tx.blockHash).toBe(block.hash);
    expect(BigInt(balance as unknown as string) - BigInt(latestBalance as unknown as string)).toBe(12_345n);
    expect(BigInt(count as unknown as string)).toBe(nonce + 1n);
    // The follower re-executed the sequencer's flashblock to the very block hash it published.
    const published = frames.filter((f) => f.metadata.blockNumber === latest + 1n).map((f) => "0x" + Buffer.from(f.diff.blockHash).toString("hex"));
    expect(published).toContain(block.hash);

    // Sealed: the canonical answers replace the pending ones.
    const sealed = await pollUntil("the block to be sealed on the follower", 20_000, async () => {
      // Head first: a receipt asked for after its block is canonical is the canonical one.
      const head = BigInt((await rpcResult(follower.url, "eth_blockNumber")) as string);
      const r = (await rpcResult(follower.url, "eth_getTransactionReceipt", [hash])) as Obj | null;
      return r !== null && BigInt(r.blockNumber as string) <= head ? r : undefined;
    }, POLL);
    const canonical = (await rpcResult(follower.url, "eth_getBlockByNumber", [sealed.blockNumber, false])) as Obj;
    expect(sealed.blockHash).toBe(canonical.hash);
    expect(sealed.blockHash).not.toBe(block.hash);
    expect((await rpcResult(seq.url, "eth_getBlockByNumber", [sealed.blockNumber, false]) as Obj).hash).toBe(canonical.hash);
    const pendingNow = (await rpcResult(follower.url, "eth_getBlockByNumber", ["pending", false])) as Obj;
    expect(BigInt(pendingNow.number as string)).toBeGreaterThanOrEqual(BigInt(canonical.number as string));
  }, 60_000);

  it("answers eth_call and eth_estimateGas in the pending block's context", async () => {
    const to = "0x" + "cd".repeat(20);
    const from = accounts[4]!.address.toLowerCase();
    const nonce = BigInt((await rpcResult(follower.url, "eth_getTransactionCount", [from, "latest"])) as string);
    const { raw, hash } = transfer(4, nonce, to, 10n ** 18n);
    await rpcResult(follower.url, "eth_sendRawTransaction", [raw]);
    await pollUntil("pre-confirmation", 20_000, async () => ((await rpcResult(follower.url, "eth_getTransactionReceipt", [hash])) === null ? undefined : true), POLL);
    // The recipient received 1 ether in the pending block only: a pending estimate can spend it, a latest one cannot.
    // One batch, retried until it is taken while the transfer is still pending (not yet sealed).
    const spend = { from: to, to: from, value: "0xde0b6b3a7640000" };
    const batch = JSON.stringify([
      { jsonrpc: "2.0", id: 0, method: "eth_getTransactionReceipt", params: [hash] },
      { jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] },
      { jsonrpc: "2.0", id: 2, method: "eth_estimateGas", params: [spend, "pending"] },
      { jsonrpc: "2.0", id: 3, method: "eth_estimateGas", params: [spend, "latest"] },
      { jsonrpc: "2.0", id: 4, method: "eth_call", params: [{ to: from, data: "0x" }, "pending"] },
    ]);
    const answers = await pollUntil("a view with the transfer still pending", 20_000, async () => {
      const out = (JSON.parse((await postRaw(follower.url, batch)).body) as { id: number; result?: Json; error?: { message: string } }[]).sort((a, b) => a.id - b.id);
      const receipt = out[0]!.result as Obj | null;
      if (receipt === null || BigInt(receipt.blockNumber as string) <= BigInt(out[1]!.result as string)) return undefined;
      return out;
    }, POLL);
    expect(answers[2]!.result).toBe("0x5208");
    expect(answers[3]!.error?.message).toMatch(/insufficient funds/);
    expect(answers[4]!.result).toBe("0x");
  }, 60_000);

  it("streams the pending block after each flashblock to eth_subscribe(newFlashblocks)", async () => {
    const ws = new WebSocket(followerWs);
    const got: Obj[] = [];
    await new Promise((r) => ws.once("open", r));
    ws.on("message", (d: Buffer) => {
      const m = JSON.parse(d.toString()) as { method?: string; params?: { result: Obj } };
      if (m.method === "eth_subscription") got.push(m.params!.result);
    });
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["newFlashblocks"] }));
    await pollUntil("three flashblock notifications", 20_000, async () => (got.length >= 3 ? true : undefined), POLL);
    ws.terminate();
    for (const b of got) {
      expect(typeof b.hash).toBe("string");
      expect(Array.isArray(b.transactions)).toBe(true);
    }
  }, 30_000);

  it("answers as of a flashblock it has reached, refuses one it has not with -32002, falls back to the canonical block, and streams its height", async () => {
    const ws = new WebSocket(followerWs);
    const heights: Obj[] = [];
    await new Promise((r) => ws.once("open", r));
    ws.on("message", (d: Buffer) => {
      const m = JSON.parse(d.toString()) as { method?: string; params?: { result: Obj } };
      if (m.method === "eth_subscription") heights.push(m.params!.result);
    });
    ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_subscribe", params: ["flashblockHeight"] }));
    const from = accounts[5]!.address.toLowerCase();
    type Answer = { id: number; result?: Json; error?: { code: number; message: string; data?: Obj } };
    /**
     * Sends a transfer of 777 wei to a fresh address and reads, as of the node's height once it is
     * pre-confirmed (N, K) and as of (N, 0), while block N is still pending; undefined when N was
     * sealed before the reads were done (the caller tries again with a new transfer).
     */
    const attempt = async (round: number): Promise<{ to: string; hash: string; here: Obj; answers: Answer[] } | undefined> => {
      const to = "0x" + "5e".repeat(19) + round.toString(16).padStart(2, "0");
      const nonce = BigInt((await rpcResult(follower.url, "eth_getTransactionCount", [from, "pending"])) as string);
      const { raw, hash } = transfer(5, nonce, to, 777n);
      await rpcResult(follower.url, "eth_sendRawTransaction", [raw]);
      // The node's height once the transfer is pre-confirmed (one batch: receipt, height and head agree).
      const here = await pollUntil("the transfer pre-confirmed at the node's height", 20_000, async () => {
        const body = JSON.stringify([
          { jsonrpc: "2.0", id: 0, method: "eth_getTransactionReceipt", params: [hash] },
          { jsonrpc: "2.0", id: 1, method: "base_flashblockHeight", params: [] },
          { jsonrpc: "2.0", id: 2, method: "eth_blockNumber", params: [] },
        ]);
        const [receipt, height, head] = (JSON.parse((await postRaw(follower.url, body)).body) as { id: number; result: Json }[]).sort((a, b) => a.id - b.id).map((x) => x.result);
        const r = receipt as Obj | null;
        const h = height as Obj | null;
        if (r === null || h === null || BigInt(r.blockNumber as string) <= BigInt(head as string)) return undefined;
        return r.blockNumber === h.blockNumber ? h : null;
      }, POLL);
      if (here === null) return undefined;
      const probe = "0x73" + to.slice(2) + "31" + "5f52" + "60205ff3";
      const atK = { blockNumber: here.blockNumber, flashblockIndex: here.flashblockIndex };
      const at0 = { blockNumber: here.blockNumber, flashblockIndex: "0x0" };
      const batch = JSON.stringify([
        { jsonrpc: "2.0", id: 0, method: "eth_getBalance", params: [to, atK] },
        { jsonrpc: "2.0", id: 1, method: "eth_getBalance", params: [to, at0] },
        { jsonrpc: "2.0", id: 2, method: "eth_call", params: [{ data: probe }, atK] },
        { jsonrpc: "2.0", id: 3, method: "eth_call", params: [{ data: probe }, at0] },
        { jsonrpc: "2.0", id: 4, method: "eth_getBlockByNumber", params: [atK, false] },
        { jsonrpc: "2.0", id: 5, method: "eth_getBlockByNumber", params: [at0, false] },
        { jsonrpc: "2.0", id: 6, method: "eth_getBalance", params: [to, { blockNumber: here.blockNumber, flashblockIndex: "0xfff0" }] },
      ]);
      const answers = (JSON.parse((await postRaw(follower.url, batch)).body) as Answer[]).sort((a, b) => a.id - b.id);
      // The calls run on execution workers, whose head may move before the RPC thread's: block N must still be pending after the batch.
      const after = BigInt((await rpcResult(follower.url, "eth_blockNumber")) as string);
      return after < BigInt(here.blockNumber as string) ? { to, hash, here, answers } : undefined;
    };
    let view: Awaited<ReturnType<typeof attempt>>;
    for (let round = 0; round < 5 && view === undefined; round++) view = await attempt(round);
    expect(view, "a view taken while the block was pending").toBeDefined();
    const { to, hash, here, answers } = view!;
    const at0 = { blockNumber: here.blockNumber, flashblockIndex: "0x0" };
    // As of index K the transfer is there; as of index 0 (deposits only) it is not — balances, calls and the block agree.
    expect(answers[0]!.result).toBe("0x309");
    expect(answers[1]!.result).toBe("0x0");
    expect(BigInt(answers[2]!.result as string)).toBe(777n);
    expect(BigInt(answers[3]!.result as string)).toBe(0n);
    expect(((answers[4]!.result as Obj).transactions as string[]).includes(hash)).toBe(true);
    expect(((answers[5]!.result as Obj).transactions as string[]).includes(hash)).toBe(false);
    expect(answers[6]!.error?.code).toBe(-32002);
    expect(answers[6]!.error?.message).toMatch(/^flashblock \d+-65520 not yet received \(this node is at \d+-\d+\)$/);
    expect(answers[6]!.error?.data?.flashblockIndex).toBe("0xfff0");

    // Canonical: every index of the block answers from the sealed block.
    await pollUntil("the block sealed on the follower", 20_000, async () => (BigInt((await rpcResult(follower.url, "eth_blockNumber")) as string) >= BigInt(here.blockNumber as string) ? true : undefined), POLL);
    expect(await rpcResult(follower.url, "eth_getBalance", [to, at0])).toBe("0x309");
    const canonical = (await rpcResult(follower.url, "eth_getBlockByNumber", [here.blockNumber, false])) as Obj;
    expect(((await rpcResult(follower.url, "eth_getBlockByNumber", [at0, false])) as Obj).hash).toBe(canonical.hash);
    ws.terminate();
    expect(heights.length).toBeGreaterThan(0);
    for (const h of heights) expect(Object.keys(h).sort()).toEqual(["blockNumber", "flashblockIndex"]);
  }, 60_000);

  it("recovers pending state after the producer is killed and restarted", async () => {
    seq.child.kill("SIGKILL");
    await seq.exited;
    // Stream down: pending answers fall back to latest.
    const fallback = await pollUntil("pending to fall back to latest", 20_000, async () => {
      const [p, l] = await Promise.all([
        rpcResult(follower.url, "eth_getBlockByNumber", ["pending", false]),
        rpcResult(follower.url, "eth_getBlockByNumber", ["latest", false]),
      ]);
      return (p as Obj).hash === (l as Obj).hash ? p : undefined;
    }, POLL);
    expect(fallback).not.toBeNull();
    seq = await startSequencer(dirs[0]!);
    // The follower reconnects (backoff up to 10 s), then pre-confirms again.
    await livePending(follower.url);
    const to = "0x" + "ef".repeat(20);
    const from = accounts[5]!.address.toLowerCase();
    const nonce = BigInt((await rpcResult(seq.url, "eth_getTransactionCount", [from, "latest"])) as string);
    const { raw, hash } = transfer(5, nonce, to, 7n);
    await rpcResult(seq.url, "eth_sendRawTransaction", [raw]);
    await pollUntil("pre-confirmation after the producer restart", 40_000, () => pendingView(follower.url, hash, from, to), POLL);
  }, 90_000);

  it("resumes after the follower restarts mid-block", async () => {
    await follower.stop();
    follower = await startFollower(dirs[1]!);
    await livePending(follower.url);
    const to = "0x" + "12".repeat(20);
    const from = accounts[6]!.address.toLowerCase();
    const nonce = BigInt((await rpcResult(seq.url, "eth_getTransactionCount", [from, "latest"])) as string);
    const { raw, hash } = transfer(6, nonce, to, 9n);
    await rpcResult(follower.url, "eth_sendRawTransaction", [raw]);
    await pollUntil("pre-confirmation after the follower restart", 40_000, () => pendingView(follower.url, hash, from, to), POLL);
  }, 90_000);
});
