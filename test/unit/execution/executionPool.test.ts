/**
 * The execution pool with real piscina workers (the compiled worker in dist/) over a real LMDB
 * datadir: answers and errors cross the thread boundary intact, requests waiting together go to
 * a worker in one batch, a request running past the timeout is cut off and its worker
 * replaced (the requests batched with it run again), a full queue refuses at once with -32005,
 * a crashed worker fails only its own requests and is replaced, and sender recovery matches the
 * transactions' own. Nothing here depends on timing: the looping call can never finish (a
 * trillion gas at ~12 gas per iteration), and the timeout counts from when a worker takes the
 * request, so a worker's restart never eats into it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devAccounts } from "../../../src/chain/devnet.js";
import { jovianDevnetGenesis } from "../../helpers/opFixtures.js";
import type { CallRequest } from "../../../src/execution/callRequest.js";
import { ExecutionPool, type ExecutionPoolOptions } from "../../../src/execution/pool/executionPool.js";
import { toJsonRpcError } from "../../../src/rpc/errors.js";
import { register } from "prom-client";
import { pollUntil } from "../../helpers/poll.js";
import { fromHex } from "../../../src/util/bytes.js";

const silent = pino({ level: "silent" });
const accounts = devAccounts();
/** Init code that never returns: JUMPDEST; PUSH1 0; JUMP — burns the whole gas cap. */
const LOOP = "0x5b600056";
/** A gas cap the loop cannot exhaust within any test's time: ~10^11 iterations. */
const ENDLESS_GAS = 1_000_000_000_000n;

let dir: string;
let chain: Chain;
let headHash: string;
const pools: ExecutionPool[] = [];

function newPool(over: Partial<ExecutionPoolOptions> = {}): ExecutionPool {
  const p = new ExecutionPool({
    threads: 1,
    maxQueue: 16,
    timeoutMs: 5_000,
    workerHeapMb: 512,
    worker: { datadir: dir, archive: true, historyBlocks: 128, logLevel: "silent", logFormat: "json" },
    logger: silent,
    ...over,
  });
  pools.push(p);
  return p;
}

const transfer = (): CallRequest => ({
  method: "eth_estimateGas",
  args: { from: fromHex(accounts[0]!.address), to: fromHex(accounts[1]!.address), value: 1n },
  block: { hash: headHash },
  gasCap: 50_000_000n,
});
const loop = (): CallRequest => ({ method: "eth_call", args: { data: fromHex(LOOP) }, block: { hash: headHash }, gasCap: ENDLESS_GAS });

/** Requests and batches handed to workers so far (from basalt_execution_pool_batch_requests). */
async function batchTotals(): Promise<{ batches: number; requests: number }> {
  const m = await register.getSingleMetric("basalt_execution_pool_batch_requests")!.get();
  const v = (suffix: string): number => m.values.find((x) => (x as { metricName?: string }).metricName === `basalt_execution_pool_batch_requests_${suffix}`)?.value ?? 0;
  return { batches: v("count"), requests: v("sum") };
}

async function errorOf(p: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await p;
  } catch (e) {
    return toJsonRpcError(e);
  }
  throw new Error("expected a failure");
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "basalt-pool-"));
  await Chain.init(dir, jovianDevnetGenesis(), { archive: true });
  chain = Chain.open(dir, { logger: silent, archive: true });
  headHash = "0x" + Buffer.from(chain.head.hash()).toString("hex");
});

afterAll(async () => {
  for (const p of pools) await p.close();
  await chain.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("execution pool", () => {
  it("answers the call family from a worker, errors included", async () => {
    const pool = newPool({ threads: 2 });
    expect(await pool.start()).toBe(2);
    expect(JSON.parse(await pool.execute(transfer()))).toBe("0x5208");
    // A revert keeps geth's code 3 and its data across the thread boundary.
    const revert = await errorOf(pool.execute({ method: "eth_call", args: { data: fromHex("0x602a60005260206000fd") }, block: { hash: headHash }, gasCap: 50_000_000n }));
    expect(revert).toEqual({ code: 3, message: "execution reverted", data: "0x" + "2a".padStart(64, "0") });
    const list = JSON.parse(await pool.execute({ ...transfer(), method: "eth_createAccessList" })) as { accessList: unknown[]; gasUsed: string };
    expect(list).toEqual({ accessList: [], gasUsed: "0x5208" });
    // A block the worker cannot find (reorged away after the tag was resolved).
    const missing = await errorOf(pool.execute({ ...transfer(), block: { hash: "0x" + "11".repeat(32) } }));
    expect(missing).toEqual({ code: -32000, message: "header not found" });
  });

  it("cuts off a request running past the timeout and replaces its worker", async () => {
    const pool = newPool({ timeoutMs: 1_000 });
    await pool.start();
    for (let i = 0; i < 2; i++) {
      const e = await errorOf(pool.execute(loop()));
      expect(e).toEqual({ code: -32000, message: "execution aborted (timeout = 1s)" });
      // The replacement worker answers the next request (its time starts when a worker takes it).
      expect(JSON.parse(await pool.execute(transfer()))).toBe("0x5208");
    }
    expect(await pool.ping()).toBe(1);
  });

  it("runs again a batch posted behind one that timed out (its worker went before it started)", async () => {
    const pool = newPool({ timeoutMs: 1_000 });
    await pool.start();
    // The endless call goes to the idle worker alone; the transfer is posted behind it, to the same worker.
    const endless = errorOf(pool.execute(loop()));
    const behind = pool.execute(transfer());
    expect(await endless).toEqual({ code: -32000, message: "execution aborted (timeout = 1s)" });
    expect(JSON.parse(await behind)).toBe("0x5208");
  });

  it("refuses requests beyond the queue bound at once with -32005", async () => {
    const pool = newPool({ maxQueue: 2, timeoutMs: 1_000 });
    await pool.start();
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => pool.execute(loop())));
    const errors = results.map((r) => (r.status === "rejected" ? toJsonRpcError(r.reason) : { code: 0, message: "ok" }));
    const busy = errors.filter((e) => e.code === -32005);
    // One runs and the next is handed to the worker behind it; two wait; the other eight are refused without waiting.
    expect(busy.length).toBe(8);
    expect(busy[0]!.message).toMatch(/server busy/);
    expect(errors.filter((e) => /execution aborted/.test(e.message)).length).toBe(4);
    expect(JSON.parse(await pool.execute(transfer()))).toBe("0x5208");
  });

  it("hands requests that wait together to a worker in one batch, answering them in order", async () => {
    const pool = newPool({ maxQueue: 100 });
    await pool.start();
    const before = await batchTotals();
    const order: number[] = [];
    // Two go to the worker at once (one running, one behind it); the other 38 wait and go in batches of up to 16.
    await Promise.all(Array.from({ length: 40 }, (_, i) => pool.execute(transfer()).then(() => order.push(i))));
    const after = await batchTotals();
    expect(order).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(after.requests - before.requests).toBe(40);
    expect(after.batches - before.batches).toBeLessThanOrEqual(2 + Math.ceil(38 / 16));
  });

  it("runs again the requests batched with one that timed out", async () => {
    const pool = newPool({ maxQueue: 100, timeoutMs: 1_000 });
    await pool.start();
    // Two endless calls take the worker and the place behind it; a third and a transfer wait, then go as one batch.
    const blockers = [errorOf(pool.execute(loop())), errorOf(pool.execute(loop()))];
    const endless = errorOf(pool.execute(loop()));
    const quick = pool.execute(transfer());
    for (const b of blockers) expect(await b).toEqual({ code: -32000, message: "execution aborted (timeout = 1s)" });
    // The endless call of the batch times out; the transfer behind it did not run, goes back to the queue and is answered.
    expect(await endless).toEqual({ code: -32000, message: "execution aborted (timeout = 1s)" });
    expect(JSON.parse(await quick)).toBe("0x5208");
  });

  it("answers queued requests in arrival order (none overtaken, none starved)", async () => {
    const pool = newPool({ maxQueue: 500 });
    await pool.start();
    const order: number[] = [];
    await Promise.all(Array.from({ length: 300 }, (_, i) => pool.execute(transfer()).then(() => order.push(i))));
    expect(order).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it("fails only the requests of a crashed worker and replaces the worker", async () => {
    const pool = newPool({ timeoutMs: 0 });
    await pool.start();
    // The endless call runs on the only worker; the transfer is posted to it behind the call.
    const doomed = errorOf(pool.execute(loop()));
    const other = pool.execute(transfer());
    await pollUntil("the endless call running, the transfer posted behind it", 10_000, async () => (pool.inFlightBatches === 2 && pool.startedRequests === 1 ? true : undefined), 5);
    await pool.threads[0]!.terminate();
    expect((await doomed).code).toBe(-32603);
    // The waiting request runs on the replacement worker.
    expect(JSON.parse(await other)).toBe("0x5208");
    for (let i = 0; i < 4; i++) expect(JSON.parse(await pool.execute(transfer()))).toBe("0x5208");
    expect(pool.threads.length).toBe(1);
  });

  it("recovers senders on a worker exactly as the transactions do", async () => {
    const pool = newPool();
    await pool.start();
    const common = chain.commonAt(1n, chain.head.header.timestamp + 2n);
    const txs = accounts.slice(0, 5).map((a, i) =>
      createFeeMarket1559Tx(
        { chainId: chain.chainId, nonce: BigInt(i), maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 21_000n, to: accounts[9]!.address as `0x${string}` },
        { common },
      ).sign(hexToBytes(a.privateKey as `0x${string}`)),
    );
    const keys = await pool.recoverSenders(1n, chain.head.header.timestamp + 2n, txs.map((t) => t.serialize()));
    expect(keys.map((k) => Buffer.from(k).toString("hex"))).toEqual(txs.map((t) => Buffer.from(t.getSenderPublicKey()).toString("hex")));
  });
});
