/**
 * The long crash-safety run (npm run test:faults): 20 kill -9 of a devnet node under transaction
 * load, then 5 kills of `basalt import` of the chain it built (checks: test/faults/crashLoop.ts).
 * Replay with BASALT_CRASH_SEED.
 */
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeCliResult, makeTempDir, removeDir, runCli, stopAllProcesses } from "../helpers/basaltProcess.js";
import { importCrashLoop, nodeCrashLoop } from "./crashLoop.js";

/** Seed of the kill delays: random unless given, printed in the test name. */
const SEED = Number(process.env.BASALT_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Node kills per run (the brief's 20). */
const NODE_KILLS = 20;
/** Import kills per run. */
const IMPORT_KILLS = 5;

describe(`crash safety, long run (seed ${SEED})`, () => {
  const dirs: string[] = [];
  let datadir = "";

  afterAll(async () => {
    await stopAllProcesses();
    for (const d of dirs) await removeDir(d);
  });

  it(`survives ${NODE_KILLS} kill -9 under transaction load`, async () => {
    datadir = await makeTempDir("basalt-crash-long-");
    dirs.push(datadir);
    const r = await nodeCrashLoop(datadir, NODE_KILLS, SEED, (l) => console.log(l));
    expect(r.receiptsChecked).toBeGreaterThan(0);
    console.log(`head ${r.head}, ${r.transactionsSent} transactions sent, ${r.receiptsChecked} receipts verified after the last restart`);
  }, 1_200_000);

  it(`re-runs \`basalt import\` killed ${IMPORT_KILLS} times to the same chain`, async () => {
    const work = await makeTempDir("basalt-crash-long-rlp-");
    dirs.push(work);
    const file = path.join(work, "chain.rlp");
    const ex = await runCli(["export", "--datadir", datadir, file]);
    expect(ex.code, describeCliResult(["export"], ex)).toBe(0);
    dirs.push(await importCrashLoop(file, IMPORT_KILLS, SEED, (l) => console.log(l)));
  }, 600_000);
});
