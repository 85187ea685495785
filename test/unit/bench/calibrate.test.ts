/**
 * The generator's calibration and its consequences: the mergeable latency histogram, size
 * classes, which calibrations a report needs, the GENERATOR-BOUND marking and the scenario's
 * verdicts on synthetic numbers, the report's calibration lines, wrk's output, and one real
 * calibration through runLoad against an in-process bare uWebSockets.js server. Asserts
 * behaviour only, never figures.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  calibrationNeeds,
  ceilingFor,
  GENERATOR_BOUND_FRACTION,
  isGeneratorBound,
  markGeneratorBound,
  sizeClass,
} from "../../../bench/load/calibrate.js";
import { mergeShards, split } from "../../../bench/load/generator.js";
import { LatencyHistogram } from "../../../bench/load/histogram.js";
import { formatTable } from "../../../bench/load/report.js";
import { runLoad } from "../../../bench/load/run.js";
import { latencyStats, Tally } from "../../../bench/load/stats.js";
import type { Calibration, CorpusResult, LoadReport, PeakResult, StepResult } from "../../../bench/load/types.js";
import { resultEquals, VALIDATOR_MODULE, validatorRef } from "../../../bench/load/validator.js";
import { findWrk, parseWrkOutput } from "../../../bench/load/wrk.js";
import { serveBare, type BareServerHandle } from "../../../bench/scenario/bareServer.js";
import { CORPUS, ENDPOINT } from "../../../bench/scenario/corpora.js";
import { computeTargets, formatTargets, ratioVerdict } from "../../../bench/scenario/targets.js";
import { LOCALHOST } from "../../helpers/ports.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

describe("latency histogram", () => {
  const values = Array.from({ length: 5000 }, (_, i) => ((i * 7919) % 5000) / 100 + 0.05);

  it("keeps percentiles within 0.8 % above the exact ones, never below, and the exact max", () => {
    const h = new LatencyHistogram();
    for (const v of values) h.record(v);
    const exact = latencyStats(values);
    for (const p of [50, 90, 99] as const) {
      const got = h.percentile(p);
      const want = exact[`p${p}`];
      expect(got).toBeGreaterThanOrEqual(want - 0.0005);
      expect(got).toBeLessThanOrEqual(want * 1.008 + 0.001);
    }
    expect(h.maxMs).toBe(Math.max(...values));
    expect(new LatencyHistogram().percentile(99)).toBe(0);
  });

  it("merges: the halves' histograms added equal the whole's", () => {
    const whole = new LatencyHistogram();
    const a = new LatencyHistogram();
    const b = new LatencyHistogram();
    values.forEach((v, i) => {
      whole.record(v);
      (i % 3 === 0 ? a : b).record(v);
    });
    a.merge(b);
    expect(a.count).toBe(whole.count);
    expect(a.maxMs).toBe(whole.maxMs);
    expect([...a.counts]).toEqual([...whole.counts]);
  });

  it("merges the threads' tallies: counts and failure kinds summed, latencies added", () => {
    const t1 = new Tally();
    const t2 = new Tally();
    t1.succeed(3);
    t1.fail("timeout", 2);
    t1.unchecked = 1;
    t2.succeed(4);
    t2.fail("timeout");
    t2.fail("http 429");
    for (const v of [1, 2, 3]) t1.latency(v);
    for (const v of [10, 20]) t2.latency(v);
    const shard = (t: Tally, sent: number, busy: number) => ({ sent, dropped: 1, tally: t.toData(), busy });
    const m = mergeShards([shard(t1, 5, 0.5), shard(t2, 6, 0.9)], 2_000_000, 1000);
    expect({ ok: m.tally.ok, failed: m.tally.failed, unchecked: m.tally.unchecked, failures: m.tally.failures }).toEqual({
      ok: 7,
      failed: 4,
      unchecked: 1,
      failures: { timeout: 3, "http 429": 1 },
    });
    expect({ sent: m.sent, dropped: m.dropped, busy: m.busy, cpu: m.cpu }).toEqual({ sent: 11, dropped: 2, busy: 0.9, cpu: 2 });
    expect(m.tally.latencies).toBe(5);
    expect(m.tally.stats().max).toBe(20);
    expect(split(10, 3)).toEqual([4, 3, 3]);
  });
});

describe("size classes and needs", () => {
  it("classes answers ×4 apart", () => {
    expect([10, 1024, 1025, 4096, 100_000, 2_000_000].map(sizeClass)).toEqual(["≤ 1 KiB", "≤ 1 KiB", "1 KiB–4 KiB", "1 KiB–4 KiB", "64 KiB–256 KiB", "> 1 MiB"]);
  });

  it("asks for an unpipelined calibration per class for the steps and one per peak pipelining", () => {
    const report = syntheticReport();
    const needs = calibrationNeeds(report);
    expect(needs).toEqual([
      { sizeClass: "≤ 1 KiB", pipeline: 1, connections: 32 },
      { sizeClass: "≤ 1 KiB", pipeline: 4, connections: 8 },
      { sizeClass: "64 KiB–256 KiB", pipeline: 1, connections: 32 },
    ]);
  });
});

/** A step at `rps` achieved. */
function step(rps: number): StepResult {
  return { rate: 256, seconds: 1, sent: rps, ok: rps, failed: 0, dropped: 0, errorRate: 0, achievedRps: rps, failures: {}, p50: 1, p90: 2, p99: 3, max: 4 };
}

/** A peak of `rps` at `pipeline`. */
function peak(rps: number, pipeline: number): PeakResult {
  return { concurrency: 32, seconds: 1, ok: rps, failed: 0, rps, failures: {}, p50: 1, p90: 2, p99: 3, max: 4, connections: 32 / pipeline, pipeline };
}

function calibration(sizeClass: string, pipeline: number, rps: number, wrkRps?: number): Calibration {
  return {
    sizeClass,
    answerBytes: 100,
    corpus: "c",
    endpoint: "e",
    connections: 32 / pipeline,
    pipeline,
    seconds: 1,
    rps,
    failed: 0,
    generatorCpu: 1,
    generatorBusy: 0.5,
    ...(wrkRps !== undefined ? { wrk: { rps: wrkRps, threads: 2, errors: 0 } } : {}),
  };
}

/**
 * basalt, anvil and bare on the scenario's corpora: small answers calibrated at 10,000 req/s
 * unpipelined and 20,000 pipelined, full blocks at 2,000.
 */
function syntheticReport(): LoadReport {
  const r = (endpoint: string, corpus: string, cls: string, s: number, p: PeakResult): CorpusResult => ({ endpoint, corpus, sizeClass: cls, steps: [step(s)], peak: p });
  return {
    startedAt: "2025-01-01T00:00:00.000Z",
    machine: { cpus: 2, cpuModel: "Test CPU", memGiB: 8, node: "v20.0.0" },
    plan: { steps: [256], stepSeconds: 1, peak: { concurrency: 32, seconds: 1 } },
    results: [
      r(ENDPOINT.basalt, CORPUS.callTransfer, "≤ 1 KiB", 256, peak(500, 4)),
      // anvil at 85 % of the pipelined ceiling: bound by the generator
      r(ENDPOINT.anvil, CORPUS.callTransfer, "≤ 1 KiB", 256, peak(17_000, 4)),
      r(ENDPOINT.basalt, CORPUS.estimateGas, "≤ 1 KiB", 256, peak(9_000, 4)),
      r(ENDPOINT.anvil, CORPUS.estimateGas, "≤ 1 KiB", 256, peak(8_000, 4)),
      // basalt's step at 256 req/s achieved 9,000 (impossible, but synthetic): ≥ 80 % of the unpipelined 10,000
      r(ENDPOINT.basalt, CORPUS.estimateEth, "≤ 1 KiB", 9_000, peak(16_500, 4)),
      r(ENDPOINT.anvil, CORPUS.estimateEth, "≤ 1 KiB", 256, peak(10_000, 4)),
      r(ENDPOINT.basalt, CORPUS.blockFull, "64 KiB–256 KiB", 256, peak(1_500, 1)),
      r(ENDPOINT.bare, CORPUS.blockFull, "64 KiB–256 KiB", 256, peak(1_900, 1)),
    ],
    generator: {
      threads: 2,
      pipeline: 4,
      sampleBytes: 8192,
      boundFraction: GENERATOR_BOUND_FRACTION,
      calibration: [calibration("≤ 1 KiB", 1, 10_000, 10_500), calibration("≤ 1 KiB", 4, 20_000, 30_000), calibration("64 KiB–256 KiB", 1, 2_000, 2_000)],
    },
  };
}

describe("GENERATOR-BOUND", () => {
  it("marks a figure at or above 80 % of its ceiling, never without a ceiling", () => {
    expect(isGeneratorBound(8_000, 10_000)).toBe(true);
    expect(isGeneratorBound(7_999, 10_000)).toBe(false);
    expect(isGeneratorBound(1e9, undefined)).toBe(false);
    const cal = syntheticReport().generator!.calibration;
    expect(ceilingFor(cal, "≤ 1 KiB", 4)).toBe(20_000);
    expect(ceilingFor(cal, "≤ 1 KiB", 2)).toBeUndefined();
    expect(ceilingFor(cal, undefined, 1)).toBeUndefined();
  });

  it("marks steps against the unpipelined ceiling and peaks against their pipelining's", () => {
    const report = syntheticReport();
    markGeneratorBound(report);
    const marks = report.results.map((r) => [r.endpoint, r.corpus, r.steps[0]!.generatorBound, r.peak!.generatorBound]);
    expect(marks).toEqual([
      [ENDPOINT.basalt, CORPUS.callTransfer, false, false],
      [ENDPOINT.anvil, CORPUS.callTransfer, false, true],
      [ENDPOINT.basalt, CORPUS.estimateGas, false, false],
      [ENDPOINT.anvil, CORPUS.estimateGas, false, false],
      [ENDPOINT.basalt, CORPUS.estimateEth, true, true],
      [ENDPOINT.anvil, CORPUS.estimateEth, false, false],
      [ENDPOINT.basalt, CORPUS.blockFull, false, false],
      [ENDPOINT.bare, CORPUS.blockFull, false, true],
    ]);
  });

  it("never passes a target resting on a bound figure; misses only when the miss holds anyway", () => {
    expect(ratioVerdict({ rps: 60, bound: false }, { rps: 100, bound: false }, 0.5)).toBe("PASS");
    expect(ratioVerdict({ rps: 40, bound: false }, { rps: 100, bound: false }, 0.5)).toBe("MISS");
    // b bound: its true figure is at least b, so a / b can only fall
    expect(ratioVerdict({ rps: 40, bound: false }, { rps: 100, bound: true }, 0.5)).toBe("MISS");
    expect(ratioVerdict({ rps: 60, bound: false }, { rps: 100, bound: true }, 0.5)).toBe("GENERATOR-BOUND");
    expect(ratioVerdict({ rps: 60, bound: true }, { rps: 100, bound: false }, 0.5)).toBe("GENERATOR-BOUND");
    expect(ratioVerdict({ rps: 40, bound: true }, { rps: 100, bound: true }, 0.5)).toBe("GENERATOR-BOUND");
  });

  it("gives the scenario's targets their verdicts from the marks", () => {
    const report = syntheticReport();
    markGeneratorBound(report);
    const byId = Object.fromEntries(computeTargets(report).map((t) => [t.id, t]));
    // basalt 500 / anvil 17,000 (bound) = 0.03 < 0.5: a miss whatever anvil's true figure
    expect(byId["call-vs-anvil"]!.verdict).toBe("MISS");
    expect(byId["call-vs-anvil"]!.measured).toContain("anvil 17000 req/s GENERATOR-BOUND");
    expect(byId["estimate-vs-anvil"]!.verdict).toBe("PASS");
    expect(byId["estimate-eth-vs-anvil"]!.verdict).toBe("GENERATOR-BOUND");
    expect(byId["estimate-eth-p99"]!.verdict).toBe("GENERATOR-BOUND");
    expect(byId["call-p99"]!.verdict).toBe("PASS");
    // basalt 1,500 / bare 1,900 (bound) = 0.79 < 0.8: a miss whatever bare's true figure
    expect(byId["block-full-vs-bare"]!.verdict).toBe("MISS");
    expect(byId["block-full-vs-anvil"]!.verdict).toBe("N/A");
    // not measured in this report (the uncached corpora, balances, receipts)
    expect(byId["block-full-uncached-vs-bare"]!.verdict).toBe("N/A");
    expect(byId["tx-receipt-vs-anvil"]!.verdict).toBe("N/A");
    const text = formatTargets(computeTargets(report), report);
    expect(text).toMatch(/^GENERATOR-BOUND {2}eth_estimateGas\(ETH transfer\)/m);
    expect(text).toContain("anvil   17000 (GB)");
  });

  it("puts the marks, the calibration and generator/wrk in the table", () => {
    const report = syntheticReport();
    markGeneratorBound(report);
    const text = formatTable(report);
    expect(text).toContain("GENERATOR-BOUND");
    expect(text).toContain("generator calibration");
    expect(text).toContain("generator/wrk ≤ 1 KiB (32×1): 0.95 — the generator reaches wrk's figure against the bare handler");
    expect(text).toContain("generator/wrk ≤ 1 KiB (8×4): 0.67 — the generator is below wrk's figure");
    expect(text).toMatch(/checks: answers ≤ 8192 B all parsed/);
  });
});

describe("wrk", () => {
  it("reads its request rate and errors", () => {
    const out = [
      "Running 3s test @ http://127.0.0.1:1/",
      "  2 threads and 32 connections",
      "  60000 requests in 3.00s, 8.00MB read",
      "  Socket errors: connect 0, read 2, write 0, timeout 1",
      "  Non-2xx or 3xx responses: 4",
      "Requests/sec:  20000.50",
    ].join("\n");
    expect(parseWrkOutput(out)).toEqual({ rps: 20000.5, requests: 60000, errors: 7 });
    expect(() => parseWrkOutput("unable to connect")).toThrow(/no request rate/);
    expect(findWrk("")).toBeUndefined();
  });
});

describe("calibration in a run", () => {
  it("measures the generator against a bare server answering the captured bytes, per size class and pipelining, and marks figures", async () => {
    const small = JSON.stringify({ jsonrpc: "2.0", id: 1, result: "0x1" });
    const server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(200, { "content-type": "application/json", "content-length": small.length }).end(small));
    });
    await new Promise<void>((resolve) => server.listen(0, LOCALHOST, resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const url = `http://${LOCALHOST}:${(server.address() as AddressInfo).port}`;
    const bare: BareServerHandle[] = [];
    const progress: string[] = [];
    const report = await runLoad(
      {
        endpoints: [{ name: "node", url }],
        corpora: [{ name: "c", bodies: [JSON.stringify({ jsonrpc: "2.0", id: 1, method: "m", params: [] })], ...validatorRef(VALIDATOR_MODULE, resultEquals, "0x1") }],
        steps: [20],
        stepSeconds: 0.3,
        peak: { concurrency: 8, seconds: 0.5 },
        threads: 2,
        calibration: { seconds: 0.5, wrk: false },
        onProgress: (l) => progress.push(l),
      },
      async (routes) => {
        const h = await serveBare(0, routes);
        bare.push(h);
        return h;
      },
    );
    cleanups.push(async () => void (await Promise.all(bare.map((b) => b.stop()))));
    expect(bare).toHaveLength(1);
    const g = report.generator!;
    expect(g.calibration.map((c) => [c.sizeClass, c.connections, c.pipeline, c.answerBytes, c.corpus, c.endpoint])).toEqual([
      ["≤ 1 KiB", 8, 1, small.length, "c", "node"],
      ["≤ 1 KiB", 2, 4, small.length, "c", "node"],
    ]);
    for (const c of g.calibration) {
      expect(c.rps).toBeGreaterThan(0);
      expect(c.failed).toBe(0);
      expect(c.wrkNote).toBe("not asked");
    }
    const r = report.results[0]!;
    expect(typeof r.steps[0]!.generatorBound).toBe("boolean");
    expect(typeof r.peak!.generatorBound).toBe("boolean");
    expect(progress.filter((l) => l.startsWith("calibration ≤ 1 KiB"))).toHaveLength(2);
    expect(formatTable(report)).toContain("generator calibration");
  });
});

describe("bare server per request body", () => {
  it("answers each known body with its own bytes, fixed routes with theirs, and 404 for an unknown body", async () => {
    const perBody = new Map([
      ['{"id":1,"n":1}', Buffer.from('{"a":1}')],
      ['{"id":1,"n":2}', Buffer.from(`{"a":"${"x".repeat(100_000)}"}`)],
    ]);
    const h = await serveBare(0, { "/": Buffer.from("fixed"), "/bodies": perBody });
    cleanups.push(() => h.stop());
    const post = async (route: string, body: string): Promise<{ status: number; text: string }> => {
      const r = await fetch(`${h.base}${route}`, { method: "POST", body });
      return { status: r.status, text: await r.text() };
    };
    expect(await post("/bodies", '{"id":1,"n":1}')).toEqual({ status: 200, text: '{"a":1}' });
    expect((await post("/bodies", '{"id":1,"n":2}')).text).toBe(perBody.get('{"id":1,"n":2}')!.toString());
    // a large body arrives in several chunks
    expect((await post("/bodies", "y".repeat(300_000))).status).toBe(404);
    expect(await post("/", "anything")).toEqual({ status: 200, text: "fixed" });
  });
});
