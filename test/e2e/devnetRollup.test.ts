/**
 * `basalt devnet rollup` end to end, real processes: the command starts an L1 (basalt's own
 * `devnet-l1` with its beacon API, or anvil given with `--l1.rpc`), deploys the rollup's contracts,
 * starts the sequencer (with its batcher) and a verifier deriving from L1 alone, and writes
 * `devnet.json`. A transfer to the portal and a `depositTransaction` sent on L1 appear on L2; the
 * verifier's safe head reaches the block holding them and every block hash up to it equals the
 * sequencer's; the sequencer's own safe head follows (its blocks consolidated from L1).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilNode } from "../../bench/scenario/anvil.js";
import { devAccounts } from "../../src/chain/devnet.js";
import { ANVIL_CHAIN_ID } from "../../src/chain/constants.js";
import { DEVNET_ROLLUP_BATCH_INBOX } from "../../src/devnet/constants.js";
import { sendL1Deposit } from "../../src/devnet/optimismPortal.js";
import { sendL1Transaction } from "../../src/devnet/l1Tx.js";
import { HttpRpcClient } from "../../src/util/rpcClient.js";
import { DEFAULT_CLI_PATH, makeTempDir, removeDir, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";
import { pollUntil, type PollOptions } from "../helpers/poll.js";
import { getFreePort } from "../helpers/ports.js";
import { rpcResult } from "../helpers/rpc.js";

type Json = Record<string, unknown>;
interface Endpoints {
  l1Rpc: string;
  l1Beacon: string;
  sequencerRpc: string;
  sequencerRollupRpc: string;
  verifierRpc: string;
  verifierRollupRpc: string;
  flashblocksWs: string;
}

/** How this file polls: every 500 ms, an error (e.g. an RPC not up yet) counting as "not yet". */
const POLL: PollOptions = { intervalMs: 500, retryErrors: true };
const dirs: string[] = [];
const running: ChildProcess[] = [];
let anvil: AnvilNode | undefined;

afterAll(async () => {
  await stopAllProcesses();
  for (const c of running) c.kill("SIGTERM");
  await Promise.all(running.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once("exit", r)))));
  await anvil?.stop();
  await Promise.all(dirs.map(removeDir));
});

/** Starts `basalt devnet rollup` in a fresh directory; resolves with its endpoints once devnet.json is written. */
async function startRollup(extra: string[]): Promise<{ endpoints: Endpoints; child: ChildProcess; dir: string; output: () => string }> {
  const dir = await makeTempDir("basalt-rollup-e2e-");
  dirs.push(dir);
  const child = spawn(process.execPath, [DEFAULT_CLI_PATH, "devnet", "rollup", "--datadir", path.join(dir, "rollup"), "--devnet.port-base", "0", "--log.level", "info", ...extra], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const file = path.join(dir, "devnet.json");
  await pollUntil("devnet.json", 120_000, async () => {
    if (child.exitCode !== null) throw new Error(`basalt devnet rollup exited ${child.exitCode}:\n${out.slice(-4000)}`);
    return existsSync(file) ? true : undefined;
  }, POLL);
  return { endpoints: JSON.parse(readFileSync(file, "utf8")) as Endpoints, child, dir, output: () => out };
}

/** Runs the checks of the module comment against a running rollup. */
async function depositsReachL2AndVerifierAgrees(e: Endpoints): Promise<void> {
  const cfg = (await rpcResult(e.sequencerRollupRpc, "optimism_rollupConfig", [])) as Json;
  const portal = cfg.deposit_contract_address as string;
  const sender = devAccounts()[1]!;
  const recipient = "0x00000000000000000000000000000000000fee01";
  // A plain transfer to the portal deposits to the sender itself; depositTransaction moves value to the recipient.
  const before = BigInt((await rpcResult(e.sequencerRpc, "eth_getBalance", [sender.address, "latest"])) as unknown as string);
  const l1 = new HttpRpcClient(e.l1Rpc);
  await sendL1Transaction(l1, sender.privateKey, { to: portal, data: new Uint8Array(), value: 3n * 10n ** 17n, gasLimit: 200_000n });
  l1.close();
  const dep = await sendL1Deposit(e.l1Rpc, sender.privateKey, portal, { to: recipient, mint: 10n ** 17n, value: 10n ** 17n, gasLimit: 100_000n });
  expect(dep.status).toBe(1);
  await pollUntil("the deposit on the sequencer", 150_000, async () => {
    const bal = BigInt((await rpcResult(e.sequencerRpc, "eth_getBalance", [recipient, "latest"])) as unknown as string);
    return bal === 10n ** 17n ? true : undefined;
  }, POLL);
  const after = BigInt((await rpcResult(e.sequencerRpc, "eth_getBalance", [sender.address, "latest"])) as unknown as string);
  expect(after - before).toBe(3n * 10n ** 17n);
  const head = Number(((await rpcResult(e.sequencerRpc, "eth_getBlockByNumber", ["latest", false])) as Json).number as string);
  // The verifier derives up to (at least) the block holding the deposit, from L1 alone.
  await pollUntil("the verifier's safe head", 150_000, async () => {
    const s = (await rpcResult(e.verifierRollupRpc, "optimism_syncStatus", [])) as Json;
    return (s.safe_l2 as { number: number }).number >= head ? true : undefined;
  }, POLL);
  for (let n = 1; n <= head; n++) {
    const q = ["0x" + n.toString(16), false];
    const [a, b] = await Promise.all([rpcResult(e.sequencerRpc, "eth_getBlockByNumber", q), rpcResult(e.verifierRpc, "eth_getBlockByNumber", q)]);
    expect((b as Json).hash, `block ${n}`).toBe((a as Json).hash);
  }
  expect(BigInt((await rpcResult(e.verifierRpc, "eth_getBalance", [recipient, "latest"])) as unknown as string)).toBe(10n ** 17n);
  // The sequencer derives too: its own blocks became safe.
  await pollUntil("the sequencer's safe head", 150_000, async () => {
    const s = (await rpcResult(e.sequencerRollupRpc, "optimism_syncStatus", [])) as Json;
    return (s.safe_l2 as { number: number }).number >= head ? true : undefined;
  }, POLL);
}

describe("basalt devnet rollup", () => {
  it("runs L1, sequencer with batcher (blobs) and verifier; L1 deposits reach L2 and the verifier derives the sequencer's blocks", async () => {
    const r = await startRollup(["--dev.block-time", "1"]);
    expect(r.output()).toContain("verifier RPC");
    await depositsReachL2AndVerifierAgrees(r.endpoints);
    // The batches went to L1 as blob transactions (type 3) to the batch inbox, served back by the L1's beacon API.
    const latest = Number(((await rpcResult(r.endpoints.l1Rpc, "eth_getBlockByNumber", ["latest", false])) as Json).number as string);
    let blobTxs = 0;
    for (let n = 0; n <= latest; n++) {
      const b = (await rpcResult(r.endpoints.l1Rpc, "eth_getBlockByNumber", ["0x" + n.toString(16), true])) as Json;
      blobTxs += (b.transactions as Json[]).filter((t) => t.type === "0x3" && (t.to as string).toLowerCase() === DEVNET_ROLLUP_BATCH_INBOX).length;
    }
    expect(blobTxs).toBeGreaterThan(0);
    r.child.kill("SIGTERM");
    await new Promise((res) => r.child.once("exit", res));
    expect(r.child.exitCode).toBe(0);
  }, 300_000);

  it("does the same on an anvil L1 given with --l1.rpc (batches in calldata)", async () => {
    anvil = await startAnvil({ chainId: ANVIL_CHAIN_ID, blockTime: 1 });
    const r = await startRollup(["--l1.rpc", anvil.url, "--l1.block-time", "1", "--batcher.data", "calldata", "--dev.block-time", "1"]);
    expect(r.endpoints.l1Rpc).toBe(anvil.url);
    await depositsReachL2AndVerifierAgrees(r.endpoints);
    // A node following the sequencer's RPC for the unsafe head, with safety from L1 alone (as Base's
    // own nodes run): its followed blocks become safe by consolidation, and its safe chain is the verifier's.
    const ws = path.join(r.dir, "rollup");
    const metricsPort = await getFreePort();
    const follower = await startNode({
      datadir: path.join(r.dir, "follower"),
      ...(process.env.BASALT_TEST_LOG_DIR === undefined ? {} : { logFile: path.join(process.env.BASALT_TEST_LOG_DIR, `follower-${process.pid}.log`) }),
      args: ["--network", path.join(ws, "genesis.json"), "--rollup.config", path.join(ws, "rollup.json"), "--l1.rpc", anvil.url, "--l1.block-time", "1", "--follow-rpc", r.endpoints.sequencerRpc, "--metrics", "--metrics.port", String(metricsPort)],
    });
    const target = Number(((await rpcResult(r.endpoints.sequencerRpc, "eth_getBlockByNumber", ["latest", false])) as Json).number as string);
    await pollUntil("the follower's safe head from L1", 150_000, async () => {
      const s = (await rpcResult(follower.rollupUrl, "optimism_syncStatus", [])) as Json;
      return (s.safe_l2 as { number: number }).number >= target ? true : undefined;
    }, POLL);
    // While it catches up, derivation may reach a height before the RPC follower does and build the
    // block itself ("built"); once caught up, the followed unsafe head leads L1 and blocks become safe
    // by consolidation. Wait for that steady state rather than sampling the catch-up.
    await pollUntil("a followed block made safe by consolidation", 150_000, async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const line = metrics.split("\n").find((l) => l.startsWith('basalt_derivation_blocks_total{result="consolidated"}'));
      return Number(line?.split(" ")[1] ?? 0) > 0 ? true : undefined;
    }, POLL);
    await pollUntil("the verifier at the same height", 150_000, async () => {
      const s = (await rpcResult(r.endpoints.verifierRollupRpc, "optimism_syncStatus", [])) as Json;
      return (s.safe_l2 as { number: number }).number >= target ? true : undefined;
    }, POLL);
    for (const n of [1, Math.floor(target / 2), target]) {
      const q = ["0x" + n.toString(16), false];
      const [a, b] = await Promise.all([rpcResult(r.endpoints.verifierRpc, "eth_getBlockByNumber", q), rpcResult(follower.url, "eth_getBlockByNumber", q)]);
      expect((b as Json).hash, `block ${n}`).toBe((a as Json).hash);
    }
    await follower.stop();
    r.child.kill("SIGTERM");
    await new Promise((res) => r.child.once("exit", res));
  }, 300_000);
});
