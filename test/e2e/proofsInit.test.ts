/**
 * End-to-end: `basalt proofs init` builds the historical-proofs store of a stopped devnet node's
 * datadir: the baseline at the head, then the window extended backwards to the configured length.
 * Run again it says the store is initialized and does nothing; with a longer window it resumes the
 * backward extension from where the window starts; a node started with `--historical-proofs` then
 * serves that window at once; and while that node holds the store, `proofs init` is refused with
 * the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeCliResult, makeTempDir, removeDir, runCli, startNode, stopAllProcesses } from "../helpers/basaltProcess.js";
import { ProofsTraffic, rpcTarget } from "../helpers/proofs.js";
import { rpcResult } from "../helpers/rpc.js";

const BLOCKS = 30;

describe("basalt proofs init (e2e)", () => {
  let datadir = "";

  beforeAll(async () => {
    datadir = await makeTempDir("basalt-e2e-proofs-init-");
    const node = await startNode({ datadir, args: ["--dev.block-time", "0"] });
    const traffic = new ProofsTraffic(rpcTarget(() => node.url));
    for (let i = 0; i < BLOCKS; i++) await traffic.block();
    await node.stop();
  }, 120_000);

  afterAll(async () => {
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  const init = async (window: number) => {
    const args = ["proofs", "init", "--datadir", datadir, "--proofs.history-window", String(window)];
    const r = await runCli(args, { timeoutMs: 60_000 });
    expect(r.code, describeCliResult(args, r)).toBe(0);
    return r.stdout + r.stderr;
  };

  it("writes the baseline at the head and extends the window backwards to head − window", async () => {
    const out = await init(20);
    expect(out).toMatch(/proofs baseline written at the head/);
    expect(out).toMatch(/"earliest":"10","latest":"30".*proofs store initialized/);
  }, 60_000);

  it("does nothing on a store whose window already reaches back that far", async () => {
    const out = await init(20);
    expect(out).toMatch(/"earliest":"10","latest":"30".*already initialized.*nothing to do/);
    expect(out).not.toMatch(/baseline written/);
  }, 60_000);

  it("resumes the backward extension for a longer window, and a node serves the window at once", async () => {
    const out = await init(1_000);
    expect(out).toMatch(/resuming the proofs window's backward extension/);
    expect(out).toMatch(/"earliest":"0","latest":"30".*proofs store initialized/);
    const node = await startNode({ datadir, args: ["--dev.block-time", "0", "--historical-proofs"] });
    expect(await rpcResult(node.url, "debug_proofsSyncStatus")).toEqual({ earliest: 0, latest: BLOCKS });
    // The node holds the store: init is refused, naming the reason.
    const args = ["proofs", "init", "--datadir", datadir];
    const busy = await runCli(args, { timeoutMs: 60_000 });
    expect(busy.code, describeCliResult(args, busy)).not.toBe(0);
    expect(busy.stderr).toMatch(/the proofs store at .* is in use: stop the node running with --historical-proofs/);
    await node.stop();
  }, 60_000);
});
