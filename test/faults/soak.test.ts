/**
 * Soak (npm run test:faults only): a devnet node under a steady transaction load and a mixed
 * JSON-RPC read load (every corpus the load tool discovers — blocks, receipts, balances, calls,
 * estimates — each at its share of the offered rate, all at once, open loop) for
 * `BASALT_SOAK_SECONDS` (default 600), after a warm-up that mines {@link WARMUP_BLOCKS} full blocks
 * (so the chain's block cache is saturated before measuring). Asserts: no failed call except rate
 * limiting (HTTP 429), no request dropped, the node never exits, the chain it built verifies, and
 * the anonymous RSS is flat (the last window's average at most the first window's plus
 * {@link RSS_GROWTH_BOUND_MIB} MiB or {@link RSS_GROWTH_BOUND_RATIO}, whichever is larger; VmRSS is
 * reported too, it also counts the LMDB file pages the reads map). Writes the figures (per-method p50/p90/p99 per minute and overall, RSS samples, blocks
 * and transactions) to `bench-results/soak-<time>.json` (or `BASALT_SOAK_OUT`) and prints them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { discoverCorpora } from "../../bench/load/corpus.js";
import { readFileSync } from "node:fs";
import { runLoad } from "../../bench/load/run.js";
import type { LoadReport, StepResult } from "../../bench/load/types.js";
import { makeTempDir, removeDir, REPO_ROOT, startNode, stopAllProcesses, type NodeHandle } from "../helpers/basaltProcess.js";
import { settle } from "../helpers/poll.js";
import { rpcResult } from "../helpers/rpc.js";
import { checkAckedReceipts, checkChainLinked, checkHeadState, TxLoad } from "./txLoad.js";

/** Default soak length: 10 minutes, long enough for a leak to show in the RSS slope. */
const DEFAULT_SOAK_SECONDS = 600;
const SOAK_SECONDS = Number(process.env.BASALT_SOAK_SECONDS ?? DEFAULT_SOAK_SECONDS);
/** Offered read rate (req/s, all methods together): sustainable on 2 shared cores with the tx load. */
const READ_RATE = Number(process.env.BASALT_SOAK_RATE ?? 200);
/** Transfers per second: ~2 per 1 s block per account, well under the pool's per-sender cap. */
const TX_PER_SECOND = 20;
/** Length of one measurement window (one load step): a minute, or a quarter of a short run. */
const WINDOW_SECONDS = Math.max(5, Math.min(60, Math.floor(SOAK_SECONDS / 4)));
/** RSS sampling period. */
const RSS_SAMPLE_MS = 5_000;
/** Allowed growth of the average RSS from the first window to the last: caches fill, JIT settles. */
const RSS_GROWTH_BOUND_MIB = 64;
const RSS_GROWTH_BOUND_RATIO = 0.25;
/**
 * Blocks mined (with {@link TX_PER_SECOND} transfers each) before the measurement starts: more than
 * the chain's 512-block LRU cache of decoded blocks, so the cache is full from the first window on
 * (at one block per second it would keep filling for 8.5 minutes and look like a leak).
 */
const WARMUP_BLOCKS = 560;
/** Blocks sampled for the read corpora (discovered after a warm-up with transactions). */
const CORPUS_BLOCKS = 32;
/** Warm-up with transactions before discovery, so the corpora have receipts and calls to replay. */
const WARMUP_MS = 8_000;
/** Failure kinds that are not errors: rate limiting of a public endpoint. */
const ALLOWED_FAILURE = /429|rate limit/i;

/** VmRSS, RssAnon (heaps, native allocations) and RssFile (mapped files: the LMDB data file, code) of `pid`, MiB. */
function readMemory(pid: number): { rss: number; anon: number; file: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, "m").exec(text)?.[1] ?? NaN) / 1024;
    return { rss: kib("VmRSS"), anon: kib("RssAnon"), file: kib("RssFile") };
  } catch {
    return undefined;
  }
}

describe("soak: mixed load on a devnet node", () => {
  let datadir = "";
  let node: NodeHandle | undefined;
  let load: TxLoad | undefined;

  afterAll(async () => {
    await load?.stop();
    await stopAllProcesses();
    if (datadir !== "") await removeDir(datadir);
  });

  it(`serves ${READ_RATE} req/s of mixed reads plus ${TX_PER_SECOND} tx/s for ${SOAK_SECONDS} s without errors or RSS growth`, async () => {
    datadir = await makeTempDir("basalt-soak-");
    node = await startNode({ datadir, args: ["--dev.block-time", "1", "--log.level", "warn"] });
    const url = node.url;
    load = new TxLoad(url, { txPerSecond: TX_PER_SECOND });
    // Warm-up: fill the chain's block cache with blocks like the soak's, mined on demand.
    const w0 = Date.now();
    for (let i = 0; i < WARMUP_BLOCKS; i++) {
      await load.burst(TX_PER_SECOND);
      await rpcResult(url, "evm_mine", []);
    }
    console.log(`warm-up: ${WARMUP_BLOCKS} blocks mined in ${((Date.now() - w0) / 1000).toFixed(0)} s`);
    load.start();
    await settle(WARMUP_MS, "the load runs its warm-up before the soak is measured");
    const corpora = await discoverCorpora(url, { blocks: CORPUS_BLOCKS });
    expect(corpora.length).toBeGreaterThan(3);
    const windows = Math.max(1, Math.round(SOAK_SECONDS / WINDOW_SECONDS));
    const perCorpusRate = READ_RATE / corpora.length;
    const rss: { t: number; mib: number; anonMiB: number; fileMiB: number }[] = [];
    const t0 = Date.now();
    const sampler = setInterval(() => {
      const m = node === undefined ? undefined : readMemory(node.pid);
      if (m !== undefined) rss.push({ t: (Date.now() - t0) / 1000, mib: m.rss, anonMiB: m.anon, fileMiB: m.file });
    }, RSS_SAMPLE_MS);
    const blockBefore = BigInt((await rpcResult(url, "eth_blockNumber")) as string);
    const sentBefore = load.sent;
    let reports: LoadReport[];
    try {
      // One runLoad per corpus, all concurrently: the node sees the mix; each method gets its own figures.
      reports = await Promise.all(
        corpora.map((c) =>
          runLoad({
            endpoints: [{ name: "basalt", url }],
            corpora: [c],
            steps: Array.from({ length: windows }, () => perCorpusRate),
            stepSeconds: WINDOW_SECONDS,
            maxSockets: 4,
            timeoutMs: 10_000,
          }),
        ),
      );
    } finally {
      clearInterval(sampler);
    }
    const blockAfter = BigInt((await rpcResult(url, "eth_blockNumber")) as string);
    const elapsed = (Date.now() - t0) / 1000;
    await load.stop();
    expect(node.exitInfo()).toBeUndefined();

    // Figures per method: per-window percentiles and the run's (p50 = median of windows, p90/p99 = worst window).
    const methods = reports.map((r) => {
      const res = r.results[0];
      const steps: StepResult[] = res?.steps ?? [];
      const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
      const failures: Record<string, number> = {};
      for (const s of steps) for (const [k, n] of Object.entries(s.failures)) failures[k] = (failures[k] ?? 0) + n;
      return {
        method: res?.corpus ?? "?",
        ok: steps.reduce((a, s) => a + s.ok, 0),
        failed: steps.reduce((a, s) => a + s.failed, 0),
        dropped: steps.reduce((a, s) => a + s.dropped, 0),
        failures,
        p50: sorted(steps.map((s) => s.p50))[Math.floor(steps.length / 2)] ?? 0,
        p90: Math.max(0, ...steps.map((s) => s.p90)),
        p99: Math.max(0, ...steps.map((s) => s.p99)),
        max: Math.max(0, ...steps.map((s) => s.max)),
        windows: steps.map((s) => ({ p50: s.p50, p90: s.p90, p99: s.p99, ok: s.ok, failed: s.failed })),
      };
    });
    // Flatness is judged on RssAnon: RssFile grows with the LMDB file pages the reads touch (page cache, reclaimable).
    const windowAvg = (from: number, to: number, key: "mib" | "anonMiB" = "anonMiB"): number => {
      const xs = rss.filter((s) => s.t >= from && s.t < to).map((s) => s[key]);
      return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    const rssFirst = windowAvg(0, WINDOW_SECONDS);
    const rssLast = windowAvg(elapsed - WINDOW_SECONDS, elapsed + 1);
    const rssBound = rssFirst + Math.max(RSS_GROWTH_BOUND_MIB, rssFirst * RSS_GROWTH_BOUND_RATIO);

    // The chain the soak built is intact: linked to genesis, every acknowledged receipt in place, head state provable.
    await load.pollReceipts();
    const chain = await checkChainLinked(url);
    const receiptsChecked = await checkAckedReceipts(url, load.acked);
    const headState = await checkHeadState(url);

    const figures = {
      startedAt: new Date(t0).toISOString(),
      seconds: elapsed,
      readRate: READ_RATE,
      txPerSecond: TX_PER_SECOND,
      windowSeconds: WINDOW_SECONDS,
      blocks: Number(blockAfter - blockBefore),
      head: chain.head.toString(),
      transactionsSent: load.sent - sentBefore,
      transactionsAcknowledged: load.acked.size,
      txSendErrors: load.sendErrors,
      receiptsChecked,
      headStateRoot: headState.stateRoot,
      rss: {
        judged: "RssAnon",
        firstWindowAvgMiB: rssFirst,
        lastWindowAvgMiB: rssLast,
        boundMiB: rssBound,
        vmRssFirstWindowAvgMiB: windowAvg(0, WINDOW_SECONDS, "mib"),
        vmRssLastWindowAvgMiB: windowAvg(elapsed - WINDOW_SECONDS, elapsed + 1, "mib"),
        samples: rss,
      },
      methods,
      machine: reports[0]?.machine,
    };
    const out = process.env.BASALT_SOAK_OUT ?? path.join(REPO_ROOT, "bench-results", `soak-${new Date(t0).toISOString().replace(/[:.]/g, "-")}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(figures, null, 2));
    const lines = methods.map(
      (m) =>
        `${m.method.padEnd(28)} ok ${String(m.ok).padStart(7)} failed ${String(m.failed).padStart(4)} dropped ${String(m.dropped).padStart(4)} ` +
        `p50 ${m.p50.toFixed(2)} ms p90 ${m.p90.toFixed(2)} ms p99 ${m.p99.toFixed(2)} ms`,
    );
    console.log(
      `soak ${elapsed.toFixed(0)} s: ${figures.blocks} blocks, ${figures.transactionsSent} tx sent, ${load.acked.size} acknowledged; ` +
        `RssAnon first ${rssFirst.toFixed(0)} MiB → last ${rssLast.toFixed(0)} MiB (bound ${rssBound.toFixed(0)}), ` +
        `VmRSS ${figures.rss.vmRssFirstWindowAvgMiB.toFixed(0)} → ${figures.rss.vmRssLastWindowAvgMiB.toFixed(0)} MiB\n${lines.join("\n")}\nfigures: ${out}`,
    );

    for (const m of methods) {
      const bad = Object.entries(m.failures).filter(([k]) => !ALLOWED_FAILURE.test(k));
      expect(bad, `${m.method}: failures other than rate limiting`).toEqual([]);
      expect(m.dropped, `${m.method}: requests dropped by the generator (server fell behind)`).toBe(0);
    }
    expect(rssLast).toBeLessThanOrEqual(rssBound);
    expect(blockAfter).toBeGreaterThan(blockBefore);
  }, (SOAK_SECONDS + 600) * 1000);
});
