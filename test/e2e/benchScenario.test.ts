/**
 * End-to-end: a tiny basalt-vs-anvil scenario (bench/scenario) against real processes — the
 * compiled basalt devnet node, anvil (@foundry-rs/anvil) and the bare uWebSockets.js server:
 * 2 blocks × 20 transactions, one 8 req/s open-loop step of 1 s, no peak, no overload, 1 s
 * calibration runs. Checks the two chains were found to agree on every transaction, every
 * endpoint × corpus has results without failures, the generator calibrated itself per answer size
 * class (with wrk when installed), and targets.json holds one line per target. Needs `npm run build`.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID } from "../../src/chain/constants.js";
import { parseScenarioArgs, runScenario, type ScenarioResult } from "../../bench/scenario/cli.js";
import { checkAgreement, labelledTxs, type AppliedChain, type TxOutcome } from "../../bench/scenario/chain.js";
import { CALL_CACHE_ENTRIES } from "../../src/rpc/constants.js";
import { CORPUS, DISTINCT_CALL_BODIES, ENDPOINT, REPETITIVE_NOTE } from "../../bench/scenario/corpora.js";
import { findWrk } from "../../bench/load/wrk.js";
import { stopAllChildren } from "../../bench/scenario/processes.js";
import { buildWorkload } from "../../bench/workload/workload.js";
import { makeTempDir, removeDir } from "../helpers/basaltProcess.js";

const BLOCKS = 2;
const TXS_PER_BLOCK = 20;
/** Funded accounts of the eth_getBalance corpus. */
const HOLDERS = 16;
/** Every target id the scenario reports, in order. */
const TARGET_IDS = [
  "block-full-vs-anvil",
  "block-full-vs-bare",
  "receipts-vs-anvil",
  "receipts-vs-bare",
  "block-full-uncached-vs-bare",
  "block-full-uncached-vs-anvil",
  "receipts-uncached-vs-bare",
  "receipts-uncached-vs-anvil",
  "call-vs-anvil",
  "call-p99",
  "estimate-vs-anvil",
  "estimate-p99",
  "estimate-eth-vs-anvil",
  "estimate-eth-p99",
  "balance-vs-anvil",
  "tx-receipt-vs-anvil",
  "overload-errors",
  "overload-latency",
  "overload-memory",
];

describe("bench scenario: basalt vs anvil (e2e)", () => {
  let out = "";
  let result: ScenarioResult | undefined;
  const progress: string[] = [];

  beforeAll(async () => {
    out = await makeTempDir("basalt-scenario-test-");
    result = await runScenario({
      blocks: BLOCKS,
      txsPerBlock: TXS_PER_BLOCK,
      holders: HOLDERS,
      steps: [8],
      stepSeconds: 1,
      overloadSeconds: 0,
      overloadFactor: 10,
      calibrationSeconds: 1,
      out,
      onProgress: (line) => progress.push(line),
    });
  }, 120_000);

  afterAll(async () => {
    await stopAllChildren();
    await removeDir(out);
  });

  it("built the same chain on both nodes: every workload transaction compared", () => {
    const w = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: BLOCKS, txsPerBlock: TXS_PER_BLOCK, holders: HOLDERS });
    const total = w.setup.flat().length + w.blocks.flat().length;
    expect(result!.agreement.txs).toBe(total);
    expect(result!.agreement.blocks).toBe(w.setup.length + BLOCKS);
    expect(result!.agreement.headTxs).toBe(TXS_PER_BLOCK);
    expect(progress.some((l) => l.startsWith("chains agree"))).toBe(true);
  });

  it("has results without failures for every endpoint and corpus", () => {
    const report = result!.report;
    const expected: string[] = [];
    for (const corpus of Object.values(CORPUS)) {
      const uncached = corpus === CORPUS.blockFullUncached || corpus === CORPUS.receiptsUncached;
      // Outside the response cache: basalt restarted with it off, anvil, and the bare server's per-body answers.
      expected.push(`${uncached ? ENDPOINT.basaltUncached : ENDPOINT.basalt} ${corpus}`, `${ENDPOINT.anvil} ${corpus}`);
      if (uncached) expected.push(`${ENDPOINT.bareBodies} ${corpus}`);
      if (corpus === CORPUS.blockFull) expected.push(`${ENDPOINT.bare} ${corpus}`);
      if (corpus === CORPUS.receipts) expected.push(`${ENDPOINT.bareReceipts} ${corpus}`);
    }
    expect(report.results.map((r) => `${r.endpoint} ${r.corpus}`).sort()).toEqual(expected.sort());
    for (const r of report.results) {
      expect(r.steps.length, `${r.endpoint} ${r.corpus}`).toBe(1);
      const s = r.steps[0]!;
      expect({ run: `${r.endpoint} ${r.corpus}`, failed: s.failed, dropped: s.dropped, failures: s.failures }).toEqual({
        run: `${r.endpoint} ${r.corpus}`,
        failed: 0,
        dropped: 0,
        failures: {},
      });
      expect(s.ok).toBeGreaterThan(0);
    }
    expect(existsSync(result!.files.json)).toBe(true);
    expect(existsSync(result!.files.html)).toBe(true);
  });

  it("sends distinct call bodies for the throughput targets, and labels the repetitive corpora", () => {
    const report = result!.report;
    for (const corpus of [CORPUS.callTransfer, CORPUS.estimateGas, CORPUS.estimateEth]) {
      const r = report.results.find((x) => x.corpus === corpus && x.endpoint === ENDPOINT.basalt)!;
      expect(r.note, corpus).toBeUndefined();
    }
    for (const corpus of [CORPUS.callRepeated, CORPUS.estimateRepeated]) {
      expect(report.results.find((x) => x.corpus === corpus)!.note).toBe(REPETITIVE_NOTE);
    }
    // Round-robin over more bodies than basalt's call cache holds (oldest evicted first): no hits.
    expect(DISTINCT_CALL_BODIES).toBeGreaterThanOrEqual(2 * CALL_CACHE_ENTRIES);
  });

  it("calibrated the generator against the bare server per answer size class, with wrk when installed", () => {
    const g = result!.report.generator!;
    const classes = new Set(result!.report.results.map((r) => r.sizeClass));
    expect(classes.has(undefined)).toBe(false);
    expect(new Set(g.calibration.map((c) => c.sizeClass))).toEqual(classes);
    for (const c of g.calibration) {
      expect(c.pipeline).toBe(1);
      expect(c.rps).toBeGreaterThan(0);
      expect(c.failed).toBe(0);
      if (findWrk() !== undefined) expect(c.wrk?.rps, c.wrkNote).toBeGreaterThan(0);
    }
    for (const r of result!.report.results) expect(typeof r.steps[0]!.generatorBound).toBe("boolean");
    expect(progress.some((l) => l.startsWith("calibration "))).toBe(true);
  });

  it("writes targets.json with a line per target", () => {
    const summary = JSON.parse(readFileSync(result!.files.targets, "utf8")) as { targets: Array<{ id: string; verdict: string; measured: string }> };
    expect(summary.targets.map((t) => t.id)).toEqual(TARGET_IDS);
    for (const t of summary.targets) {
      expect(["PASS", "MISS", "N/A", "GENERATOR-BOUND"]).toContain(t.verdict);
      expect(t.measured.length).toBeGreaterThan(0);
    }
  });

  it("parses its command line (--quick defaults, overrides, errors)", () => {
    const q = parseScenarioArgs(["--quick", "--out", "x"])!;
    expect({ blocks: q.blocks, steps: q.steps, stepSeconds: q.stepSeconds, peak: q.peak, overloadSeconds: q.overloadSeconds }).toEqual({
      blocks: 2,
      steps: [16, 256],
      stepSeconds: 1,
      peak: { concurrency: 32, seconds: 2 },
      overloadSeconds: 2,
    });
    const g = parseScenarioArgs(["--threads", "0", "--pipeline", "1", "--calibration-seconds", "0.5"])!;
    expect({ threads: g.threads, pipeline: g.pipeline, calibrationSeconds: g.calibrationSeconds }).toEqual({ threads: 0, pipeline: 1, calibrationSeconds: 0.5 });
    expect(() => parseScenarioArgs(["--threads", "1.5"])).toThrow(/integer >= 0/);
    const o = parseScenarioArgs(["--blocks=3", "--steps", "8,9", "--peak-seconds", "0", "--overload-seconds", "0"])!;
    expect(o.blocks).toBe(3);
    expect(o.steps).toEqual([8, 9]);
    expect(o.peak).toBeUndefined();
    expect(o.overloadSeconds).toBe(0);
    expect(o.out).toMatch(/^bench-results[/\\]scenario-/);
    expect(parseScenarioArgs(["--help"])).toBeUndefined();
    expect(() => parseScenarioArgs(["--bogus"])).toThrow(/unknown flag/);
    expect(() => parseScenarioArgs(["--blocks", "0"])).toThrow(/integer >= 1/);
  });
});

describe("bench scenario: the agreement check", () => {
  const w = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: 1, txsPerBlock: 10 });
  const txs = labelledTxs(w);
  /** Both nodes mined round r in block r + 1, every tx with status 0x1 and 21000 + i gas. */
  const applied = (node: string, tweak?: (hash: string, o: TxOutcome) => TxOutcome): AppliedChain => {
    const outcomes = new Map<string, TxOutcome>();
    const rounds = [...w.setup, ...w.blocks];
    let i = 0;
    rounds.forEach((round, r) => {
      for (let k = 0; k < round.length; k++, i++) {
        const o: TxOutcome = { status: "0x1", gasUsed: 21_000n + BigInt(i), blockNumber: BigInt(r + 1) };
        outcomes.set(txs[i]!.hash, tweak === undefined ? o : tweak(txs[i]!.hash, o));
      }
    });
    return { node, outcomes, blockTxCounts: rounds.map((round) => round.length), head: BigInt(rounds.length) };
  };

  it("passes identical outcomes and counts every transaction", () => {
    expect(checkAgreement(w, applied("basalt"), applied("anvil")).txs).toBe(txs.length);
  });

  it("names the transaction whose gasUsed or status differs", () => {
    const victim = txs[txs.length - 1]!;
    const moreGas = applied("anvil", (h, o) => (h === victim.hash ? { ...o, gasUsed: o.gasUsed + 1n } : o));
    expect(() => checkAgreement(w, applied("basalt"), moreGas)).toThrow(new RegExp(`${victim.label} \\(${victim.hash}\\): gasUsed`));
    const reverted = applied("anvil", (h, o) => (h === victim.hash ? { ...o, status: "0x0" } : o));
    expect(() => checkAgreement(w, applied("basalt"), reverted)).toThrow(/status 0x1 on basalt, 0x0 on anvil/);
    const missing = applied("anvil");
    missing.outcomes.delete(victim.hash);
    expect(() => checkAgreement(w, applied("basalt"), missing)).toThrow(/has no receipt on anvil/);
  });

  it("fails on differing block transaction counts", () => {
    const split = applied("anvil");
    split.blockTxCounts = [...split.blockTxCounts.slice(0, -1), 9, 1];
    expect(() => checkAgreement(w, applied("basalt"), split)).toThrow(/holds 10 workload txs on basalt and 9 on anvil/);
  });
});
