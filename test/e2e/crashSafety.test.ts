/**
 * Crash safety and graceful shutdown, short versions for `npm test` (the 20-kill loop is in
 * test/faults/crash.test.ts):
 * - a devnet node under transaction load is SIGKILLed 3 times at seeded random moments; after each
 *   restart the store opens and the chain, acknowledged receipts and head state verify (see
 *   test/faults/crashLoop.ts for the checks);
 * - `basalt import` of the resulting chain is SIGKILLed twice; the re-run completes and exports the
 *   same bytes;
 * - SIGTERM with requests in flight: a short eth_call is still answered, one longer than the
 *   drain (SHUTDOWN_DRAIN_MS) is cut off cleanly, the process exits 0, and the datadir reopens;
 *   a second signal exits at once with code 1.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SHUTDOWN_DRAIN_MS } from "../../src/cli/constants.js";
import { jovianDevnetGenesis } from "../helpers/opFixtures.js";
import { describeCliResult, makeTempDir, removeDir, runCli, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { waitUntil } from "../helpers/poll.js";
import { getFreePort } from "../helpers/ports.js";
import { postRaw, rpcResult } from "../helpers/rpc.js";
import { importCrashLoop, nodeCrashLoop } from "../faults/crashLoop.js";

/** Seed of the kill delays (override with BASALT_CRASH_SEED to replay a failure). */
const SEED = Number(process.env.BASALT_CRASH_SEED ?? 20_240_601);
/** An eth_call of init code that loops until its gas runs out (JUMPDEST PUSH1 0 JUMP). */
const LOOP_CODE = "0x5b600056";
/**
 * Gas of the call that ends within the drain (10 M gas: well under a second on either engine) and
 * of the one that outlives it: 50 G gas is ~4 G loop iterations, minutes even at 1 G gas/s, so the
 * test does not depend on how fast the EVM is (still under 2^53, so the fast engine runs it).
 */
const SHORT_CALL_GAS = 10_000_000n;
const LONG_CALL_GAS = 50_000_000_000n;
/** Slack over the drain for closing workers and the store. */
const EXIT_MARGIN_MS = 8_000;

function loopCall(gas: bigint): string {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_call", params: [{ data: LOOP_CODE, gas: `0x${gas.toString(16)}` }, "latest"] });
}

describe("crash safety and graceful shutdown (e2e)", () => {
  const dirs: string[] = [];
  const tempDir = async (prefix: string): Promise<string> => {
    const d = await makeTempDir(prefix);
    dirs.push(d);
    return d;
  };
  let chainDatadir = "";

  afterAll(async () => {
    await stopAllProcesses();
    for (const d of dirs) await removeDir(d);
  });

  it(`survives 3 kill -9 under transaction load (seed ${SEED})`, async () => {
    chainDatadir = await tempDir("basalt-crash-");
    const r = await nodeCrashLoop(chainDatadir, 3, SEED, (l) => console.log(l));
    expect(r.receiptsChecked).toBeGreaterThan(0);
  }, 240_000);

  it("re-runs a killed `basalt import` to the same chain", async () => {
    const file = path.join(await tempDir("basalt-crash-rlp-"), "chain.rlp");
    const ex = await runCli(["export", "--datadir", chainDatadir, file]);
    expect(ex.code, describeCliResult(["export"], ex)).toBe(0);
    dirs.push(await importCrashLoop(file, 2, SEED, (l) => console.log(l)));
  }, 240_000);

  it("drains in-flight requests on SIGTERM, exits 0, and reopens", async () => {
    const datadir = await tempDir("basalt-shutdown-");
    // The devnet before Base's Azul: a call may run past EIP-7825's 2^24 gas (the long call must outlive the drain).
    const genesis = path.join(await tempDir("basalt-shutdown-genesis-"), "devnet-jovian.json");
    writeFileSync(genesis, JSON.stringify(jovianDevnetGenesis()));
    const metricsPort = await getFreePort();
    const args = ["--dev.block-time", "1", "--rpc.threads", "2", "--rpc.gascap", String(LONG_CALL_GAS), "--rpc.evmtimeout", "600000", "--log.level", "info", "--network", genesis, "--metrics", "--metrics.port", String(metricsPort)];
    /** Execution workers running a call now (basalt_execution_pool_busy_workers). */
    const busyWorkers = async (): Promise<number> => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const line = text.split("\n").find((l) => l.startsWith("basalt_execution_pool_busy_workers "));
      return line === undefined ? 0 : Number(line.split(" ")[1]);
    };
    const node: NodeHandle = await startNode({ datadir, args });
    await rpcResult(node.url, "eth_blockNumber");
    const long = postRaw(node.url, loopCall(LONG_CALL_GAS), { timeoutMs: 60_000 }).then(
      (r) => ({ ok: true as const, r }),
      (e: unknown) => ({ ok: false as const, e: e as Error }),
    );
    let shortDone = false;
    const short = postRaw(node.url, loopCall(SHORT_CALL_GAS), { timeoutMs: 60_000 }).finally(() => (shortDone = true));
    // Both calls reached the node: the long one runs, the short one runs too or has answered.
    await waitUntil("both calls at the node", 30_000, async () => (await busyWorkers()) >= (shortDone ? 1 : 2), 20);
    const t0 = Date.now();
    node.child.kill("SIGTERM");
    const exit = await Promise.race([node.exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), SHUTDOWN_DRAIN_MS + EXIT_MARGIN_MS))]);
    expect(exit, `did not exit within ${SHUTDOWN_DRAIN_MS + EXIT_MARGIN_MS} ms\n${node.outputTail()}`).not.toBe("timeout");
    expect(exit).toEqual({ code: 0, signal: null });
    console.log(`SIGTERM → exit 0 after ${Date.now() - t0} ms`);
    // The short call finished during the drain: its answer is a JSON-RPC response.
    const s = await short;
    expect(s.status).toBe(200);
    const body = JSON.parse(s.body) as { id: number; result?: string; error?: { message: string } };
    expect(body.id).toBe(1);
    expect(body.result !== undefined || body.error !== undefined).toBe(true);
    // The long one outlived the drain: a clean error or a closed connection, never a hang.
    const l = await long;
    if (l.ok) expect([200, 503]).toContain(l.r.status);
    else expect(l.e.message).toMatch(/failed|closed|socket|terminated/i);
    await node.stop();

    // The store was closed cleanly: a restart opens it and carries on producing.
    const again = await startNode({ datadir, args: [...args.filter((_, i) => i > 1), "--dev.block-time", "0"] });
    const head = BigInt((await rpcResult(again.url, "eth_blockNumber")) as string);
    await rpcResult(again.url, "evm_mine", []);
    expect(BigInt((await rpcResult(again.url, "eth_blockNumber")) as string)).toBe(head + 1n);

    // A second signal during the drain exits at once, with code 1.
    const stuck = postRaw(again.url, loopCall(LONG_CALL_GAS), { timeoutMs: 60_000 }).catch(() => undefined);
    await waitUntil("the stuck call running", 30_000, async () => (await busyWorkers()) >= 1, 20);
    again.child.kill("SIGTERM");
    await waitUntil("the node draining after the first signal", 10_000, () => again.outputTail(400).includes("shutting down"), 20);
    again.child.kill("SIGTERM");
    const second = await Promise.race([again.exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), SHUTDOWN_DRAIN_MS))]);
    expect(second).toEqual({ code: 1, signal: null });
    await stuck;
    await again.stop();
  }, 120_000);
});
