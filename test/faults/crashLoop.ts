/**
 * The crash-safety procedures shared by the short version in `npm test`
 * (test/e2e/crashSafety.test.ts) and the long one in `npm run test:faults`
 * (test/faults/crash.test.ts).
 *
 * - {@link nodeCrashLoop}: a devnet node seals 1 s blocks under a continuous transfer load and is
 *   SIGKILLed after seeded random delays; after every restart the store must open and the node
 *   must pass these checks — cheap, and each catches a different torn write:
 *   1. `eth_blockNumber` ≥ the highest block the test saw (in a receipt or an eth_blockNumber answer):
 *      nothing acknowledged was lost;
 *   2. every receipt the node returned before any kill is still served with the same block hash
 *      (tx index, receipts and canonical index committed together);
 *   3. every block 0..head is served and its parentHash is the previous block's hash (no hole or
 *      fork in the canonical index);
 *   4. the head state: eth_getProof of each dev account verifies against the head's stateRoot
 *      (every trie node on the path is stored) and equals eth_getBalance / eth_getTransactionCount
 *      (the flat state is the trie's state);
 *   5. the node then seals new blocks on top (the next iteration waits for one).
 * - {@link importCrashLoop}: `basalt import` of a chain file is SIGKILLed at seeded random moments;
 *   re-running it completes, and `basalt export` of the result is byte-identical to the file.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { describeCliResult, makeTempDir, runCli, startNode, type NodeHandle } from "../helpers/basaltProcess.js";
import { settle } from "../helpers/poll.js";
import { rpcResult } from "../helpers/rpc.js";
import { checkAckedReceipts, checkChainLinked, checkHeadState, seededRandom, TxLoad, waitForBlockAbove } from "./txLoad.js";

/** Transfers per second during the crash loop: several per block, so most kills land mid-commit work. */
const CRASH_TX_PER_SECOND = 25;
/** Kill delays after the node is up and has sealed a block: uniform in [min, max) ms. */
const KILL_DELAY_MIN_MS = 300;
const KILL_DELAY_MAX_MS = 3_000;

/** What one crash loop saw. */
export interface CrashLoopResult {
  iterations: number;
  head: bigint;
  receiptsChecked: number;
  transactionsSent: number;
}

/**
 * Runs `iterations` kill -9 / restart cycles of a devnet node on `datadir` (see the module doc).
 * `log` receives one line per iteration. The caller removes the datadir and stops processes.
 */
export async function nodeCrashLoop(datadir: string, iterations: number, seed: number, log: (line: string) => void = () => undefined): Promise<CrashLoopResult> {
  const rand = seededRandom(seed);
  const args = ["--dev.block-time", "1", "--log.level", "warn"];
  let node: NodeHandle = await startNode({ datadir, args });
  const load = new TxLoad(node.url, { txPerSecond: CRASH_TX_PER_SECOND });
  load.start();
  let highest = 0n;
  let receiptsChecked = 0;
  try {
    for (let i = 0; i < iterations; i++) {
      // The node is producing again (check 5 of the previous restart).
      highest = await waitForBlockAbove(node.url, highest, 30_000);
      const delay = KILL_DELAY_MIN_MS + Math.floor(rand() * (KILL_DELAY_MAX_MS - KILL_DELAY_MIN_MS));
      // The kill point is random: the load runs `delay` ms while the head is recorded.
      await settle(delay, "kill the node at a random point of the load", async () => {
        try {
          const n = BigInt((await rpcResult(node.url, "eth_blockNumber", [], { timeoutMs: 1000 })) as string);
          if (n > highest) highest = n;
        } catch {
          // a slow answer under load: keep going
        }
      });
      node.child.kill("SIGKILL");
      await node.exited;
      await node.stop();
      if (load.highestSeen > highest) highest = load.highestSeen;
      // Transactions still in the mempool died with it.
      load.forgetPending();
      node = await startNode({ datadir, args });
      load.setUrl(node.url);
      const head = BigInt((await rpcResult(node.url, "eth_blockNumber")) as string);
      expect(head, `iteration ${i} (seed ${seed}): head after restart`).toBeGreaterThanOrEqual(highest);
      receiptsChecked = await checkAckedReceipts(node.url, load.acked);
      const linked = await checkChainLinked(node.url);
      await checkHeadState(node.url);
      log(`crash ${i + 1}/${iterations} (seed ${seed}): killed after ${delay} ms; head ${linked.head} ≥ ${highest}, ${receiptsChecked} receipts intact`);
      highest = linked.head;
    }
    highest = await waitForBlockAbove(node.url, highest, 30_000);
  } finally {
    await load.stop();
    await node.stop();
  }
  return { iterations, head: highest, receiptsChecked, transactionsSent: load.sent };
}

/**
 * Kills `basalt import <chainFile>` into a fresh devnet datadir `kills` times at seeded random
 * moments, then re-runs it to completion and checks that `basalt export` gives the file back.
 * Returns the datadir used (the caller removes it).
 */
export async function importCrashLoop(chainFile: string, kills: number, seed: number, log: (line: string) => void = () => undefined): Promise<string> {
  const rand = seededRandom(seed ^ 0x5eed);
  const work = await makeTempDir("basalt-import-crash-");
  const run = async (datadir: string, timeoutMs: number): Promise<Awaited<ReturnType<typeof runCli>>> =>
    runCli(["import", "--datadir", datadir, "--log.level", "warn", chainFile], { timeoutMs });
  const init = async (datadir: string): Promise<void> => {
    const r = await runCli(["init", "--datadir", datadir]);
    expect(r.code, describeCliResult(["init"], r)).toBe(0);
  };
  // Reference run: how long a whole import takes here, so the kills land inside it.
  const ref = path.join(work, "reference");
  await init(ref);
  const t0 = Date.now();
  const full = await run(ref, 300_000);
  expect(full.code, describeCliResult(["import"], full)).toBe(0);
  const fullMs = Date.now() - t0;
  const datadir = path.join(work, "crashed");
  await init(datadir);
  let killed = 0;
  for (let i = 0; i < kills; i++) {
    const at = Math.floor(fullMs * (0.2 + 0.75 * rand()));
    const r = await run(datadir, at);
    if (r.timedOut) killed++;
    else expect(r.code, describeCliResult(["import"], r)).toBe(0);
    log(`import kill ${i + 1}/${kills} (seed ${seed}): at ${at} ms of ~${fullMs} ms → ${r.timedOut ? "killed" : "finished first"}`);
  }
  const last = await run(datadir, 300_000);
  expect(last.code, describeCliResult(["import"], last)).toBe(0);
  const out = path.join(work, "re-export.rlp");
  const ex = await runCli(["export", "--datadir", datadir, out]);
  expect(ex.code, describeCliResult(["export"], ex)).toBe(0);
  expect((await readFile(out)).equals(await readFile(chainFile)), "re-exported chain differs from the imported file").toBe(true);
  expect(killed, "no import was killed before it finished: the chain file is too short to test this").toBeGreaterThan(0);
  return work;
}
