/**
 * The JSON-RPC fuzz test body, run with 3,000 cases in `npm test` (test/e2e/fuzz.test.ts) and
 * 50,000 in `npm run test:faults` (test/faults/fuzz.test.ts). See fuzzRunner.ts for the cases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRssMiB } from "../../bench/load/rss.js";
import { makeTempDir, removeDir, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { rpcResult } from "../helpers/rpc.js";
import { runFuzz } from "./fuzzRunner.js";

/**
 * Allowed RSS growth of the node over the run, measured after a warm-up: 128 MiB covers caches
 * filling and V8 heap growth (the node's RSS is ~250 MiB idle); a leak per request would exceed
 * it over 50,000 requests.
 */
export const FUZZ_RSS_BOUND_MIB = 128;
/** Cases sent before the RSS baseline is taken (JIT, caches, worker heaps warm up). */
const WARMUP_CASES = 300;

/** Declares the fuzz suite: `count` cases with seed BASALT_FUZZ_SEED (default: random, printed). */
export function fuzzSuite(count: number): void {
  const seed = Number(process.env.BASALT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
  describe(`JSON-RPC fuzzing (${count} requests, seed ${seed})`, () => {
    let datadir = "";
    let node: NodeHandle;

    beforeAll(async () => {
      datadir = await makeTempDir("basalt-fuzz-");
      node = await startNode({ datadir, args: ["--dev.block-time", "1", "--log.level", "error"] });
    });

    afterAll(async () => {
      await stopAllProcesses();
      if (datadir !== "") await removeDir(datadir);
    });

    it("answers every request with an HTTP error or a well-formed JSON-RPC response, stays up, and keeps its RSS bounded", async () => {
      const replay = `replay with BASALT_FUZZ_SEED=${seed}`;
      const warm = await runFuzz(node.url, WARMUP_CASES, seed ^ 0x1234);
      expect(warm.failures, replay).toEqual([]);
      const before = readRssMiB(node.pid) ?? 0;
      const t0 = Date.now();
      const r = await runFuzz(node.url, count, seed);
      const after = readRssMiB(node.pid) ?? 0;
      console.log(
        `fuzz: ${r.sent} requests in ${((Date.now() - t0) / 1000).toFixed(1)} s, statuses ${JSON.stringify(r.statuses)}, ` +
          `RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB (bound +${FUZZ_RSS_BOUND_MIB}), seed ${seed}`,
      );
      expect(r.failures, `${replay}\n${r.failures.join("\n")}`).toEqual([]);
      expect(r.transportErrors, replay).toBe(0);
      expect(node.exitInfo(), `${replay}\n${node.outputTail()}`).toBeUndefined();
      expect(await rpcResult(node.url, "eth_chainId")).toBe("0xce619");
      expect(after, replay).toBeLessThanOrEqual(before + FUZZ_RSS_BOUND_MIB);
    }, Math.max(120_000, count * 40));
  });
}
