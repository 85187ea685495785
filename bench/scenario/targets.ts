/**
 * The scenario's targets: throughput ratios basalt/anvil and basalt/bare per method, latency at a
 * fixed rate, and the overload behaviour — each a line with its measured figure and PASS/MISS
 * (N/A when the run did not measure it, e.g. no 256 req/s step or no overload stage), or
 * GENERATOR-BOUND when a figure it rests on is within reach of the load generator's own ceiling
 * (bench/load/calibrate.ts), so the run cannot tell whether the target is met. The throughput
 * targets are read on corpora of distinct bodies only; the repetitive corpora are reported apart.
 */
import { GENERATOR_BOUND } from "../load/table.js";
import type { LoadReport, StepResult } from "../load/types.js";
import { CORPUS, ENDPOINT } from "./corpora.js";

/** The verdict of one target. */
export type Verdict = "PASS" | "MISS" | "N/A" | typeof GENERATOR_BOUND;

/** One target line. */
export interface TargetLine {
  /** stable id, e.g. "block-full-vs-anvil" */
  id: string;
  /** what is required, e.g. "eth_getBlockByNumber(latest,true): basalt ≥ anvil" */
  target: string;
  /** the measured figure(s) in words */
  measured: string;
  /** the figure compared with `threshold` (a ratio, or ms, or MiB), when measured */
  value?: number;
  threshold?: number;
  verdict: Verdict;
}

/** What the overload stage measured (an open-loop eth_call step on basalt at a multiple of its peak). */
export interface OverloadResult {
  /** basalt's eth_call throughput the rate was derived from, req/s */
  peakRps: number;
  /** the offered rate, req/s */
  rate: number;
  step: StepResult;
  /** basalt's RSS just before the step, MiB */
  rssBeforeMiB?: number;
  /** the highest RSS sampled during the step, MiB */
  rssDuringMaxMiB?: number;
  /** RSS a moment after the step, MiB */
  rssAfterMiB?: number;
}

/** Block and receipts serving: basalt must reach anvil's throughput (ratio ≥ 1). */
export const SERVE_VS_ANVIL_MIN = 1;
/** Block and receipts serving from the response cache: basalt must reach 80 % of the bare server serving the same bytes (the issue's target). */
export const SERVE_VS_BARE_MIN = 0.8;
/**
 * Block and receipts serving outside the response cache (older blocks, rendered per request):
 * basalt must reach 50 % of the bare server serving the same bytes per request (the issue's target).
 */
export const SERVE_UNCACHED_VS_BARE_MIN = 0.5;
/** eth_call / eth_estimateGas / eth_getBalance / eth_getTransactionReceipt: basalt must reach anvil's throughput (the issue's target; its moonshot is 1.5×). */
export const EXECUTION_VS_ANVIL_MIN = 1;
/** The issue's moonshot for the same ratios, printed beside the target. */
export const EXECUTION_VS_ANVIL_MOONSHOT = 1.5;
/** The rate the execution latency target is read at: 256 req/s, a busy public endpoint's share of one node. */
export const LATENCY_RATE = 256;
/** eth_call / eth_estimateGas p99 limit at {@link LATENCY_RATE}: 10 ms, wallet-interactive latency. */
export const LATENCY_P99_MAX_MS = 10;
/**
 * Overload p99 limit: 1 s. A rejection costs the server microseconds; a second bounds what the
 * kernel and the generator add at 10× the peak, while a server that queued without bound would
 * push answers toward the 10 s request timeout.
 */
export const OVERLOAD_P99_MAX_MS = 1_000;
/**
 * Overload memory limit: RSS may grow by at most 256 MiB during the step — a bounded queue of
 * waiting requests costs tens of MiB, unbounded queueing at 10× the peak costs far more.
 */
export const OVERLOAD_RSS_GROWTH_MAX_MIB = 256;

/** A throughput figure and whether it is marked bound by the generator. */
export interface Figure {
  rps: number;
  bound: boolean;
}

/**
 * Throughput of `corpus` on `endpoint`: the closed-loop peak's req/s when the run had a peak,
 * else the best achieved req/s of its open-loop steps, with its generator-bound mark; undefined
 * when not run.
 */
export function figure(report: LoadReport, endpoint: string, corpus: string): Figure | undefined {
  const r = report.results.find((x) => x.endpoint === endpoint && x.corpus === corpus);
  if (r === undefined) return undefined;
  if (r.peak !== undefined) return { rps: r.peak.rps, bound: r.peak.generatorBound === true };
  if (r.steps.length === 0) return undefined;
  const best = r.steps.reduce((a, b) => (b.achievedRps > a.achievedRps ? b : a));
  return { rps: best.achievedRps, bound: best.generatorBound === true };
}

/** Throughput of `corpus` on `endpoint` in req/s (see {@link figure}). */
export function throughput(report: LoadReport, endpoint: string, corpus: string): number | undefined {
  return figure(report, endpoint, corpus)?.rps;
}

/**
 * The verdict of "a / b ≥ min" from two figures. A figure bound by the generator is a lower bound
 * of the server's: the target is then GENERATOR-BOUND, never PASS — except a MISS that holds
 * anyway (only b bound and a / b < min: b's true figure can only be higher).
 */
export function ratioVerdict(a: Figure, b: Figure, min: number): Verdict {
  const met = a.rps / b.rps >= min;
  if (!a.bound && !b.bound) return met ? "PASS" : "MISS";
  if (!a.bound && !met) return "MISS";
  return GENERATOR_BOUND;
}

function fmt(n: number): string {
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

function ratioLine(report: LoadReport, id: string, corpus: string, other: string, label: string, min: number, subject: string = ENDPOINT.basalt, note = ""): TargetLine {
  const target = `${corpus}: basalt ≥ ${min === 1 ? "" : `${Math.round(min * 100)} % of `}${label}${note}`;
  const a = figure(report, subject, corpus);
  const b = figure(report, other, corpus);
  if (a === undefined || b === undefined || b.rps <= 0) return { id, target, measured: "not measured", threshold: min, verdict: "N/A" };
  const ratio = a.rps / b.rps;
  const mark = (f: Figure): string => (f.bound ? ` ${GENERATOR_BOUND}` : "");
  const measured = `basalt ${fmt(a.rps)} req/s${mark(a)} / ${label} ${fmt(b.rps)} req/s${mark(b)} = ${ratio.toFixed(2)}`;
  // Without a peak the figures are open-loop rates, capped by the offered rate: no verdict.
  if (report.plan.peak === undefined) {
    return { id, target, measured: `${measured} (open loop only, no peak run)`, value: ratio, threshold: min, verdict: "N/A" };
  }
  return { id, target, measured, value: ratio, threshold: min, verdict: ratioVerdict(a, b, min) };
}

function latencyLine(report: LoadReport, id: string, corpus: string): TargetLine {
  const target = `${corpus}: basalt p99 < ${LATENCY_P99_MAX_MS} ms at ${LATENCY_RATE} req/s`;
  const r = report.results.find((x) => x.endpoint === ENDPOINT.basalt && x.corpus === corpus);
  const s = r?.steps.find((x) => x.rate === LATENCY_RATE);
  if (s === undefined) return { id, target, measured: `no ${LATENCY_RATE} req/s step`, threshold: LATENCY_P99_MAX_MS, verdict: "N/A" };
  const ok = s.p99 < LATENCY_P99_MAX_MS && s.failed === 0;
  const bound = s.generatorBound === true ? ` (${fmt(s.achievedRps)} req/s, ${GENERATOR_BOUND})` : "";
  const measured = `p99 ${s.p99.toFixed(2)} ms (p50 ${s.p50.toFixed(2)} ms)${s.failed > 0 ? `, ${s.failed} failed` : ""}${bound}`;
  // Latency measured near the generator's ceiling includes the generator's queueing: no verdict either way.
  const verdict: Verdict = s.generatorBound === true ? GENERATOR_BOUND : ok ? "PASS" : "MISS";
  return { id, target, measured, value: s.p99, threshold: LATENCY_P99_MAX_MS, verdict };
}

/** `rpc -32005 ×120, timeout ×3` — every failure kind, most frequent first. */
function kinds(failures: Record<string, number>): string {
  const e = Object.entries(failures).sort((a, b) => b[1] - a[1]);
  return e.length === 0 ? "none" : e.map(([k, n]) => `${k} ×${n}`).join(", ");
}

function overloadLines(o: OverloadResult | undefined): TargetLine[] {
  const errorsTarget = "overload (eth_call at 10× basalt's peak): every failure a prompt JSON-RPC error (-32005 expected)";
  const latencyTarget = `overload: p99 < ${OVERLOAD_P99_MAX_MS} ms`;
  const memoryTarget = `overload: basalt RSS grows < ${OVERLOAD_RSS_GROWTH_MAX_MIB} MiB`;
  if (o === undefined) {
    return [
      { id: "overload-errors", target: errorsTarget, measured: "no overload stage", verdict: "N/A" },
      { id: "overload-latency", target: latencyTarget, measured: "no overload stage", threshold: OVERLOAD_P99_MAX_MS, verdict: "N/A" },
      { id: "overload-memory", target: memoryTarget, measured: "no overload stage", threshold: OVERLOAD_RSS_GROWTH_MAX_MIB, verdict: "N/A" },
    ];
  }
  const s = o.step;
  const unanswered = Object.entries(s.failures).filter(([k]) => !k.startsWith("rpc ")).reduce((n, [, c]) => n + c, 0);
  const offered = s.seconds > 0 ? (s.sent + s.dropped) / s.seconds : 0;
  const errors: TargetLine = {
    id: "overload-errors",
    target: errorsTarget,
    measured:
      `${fmt(o.rate)} req/s offered (peak ${fmt(o.peakRps)}; generator reached ${fmt(offered)}, dropped ${s.dropped}): ok ${s.ok}, ` +
      `error rate ${(s.errorRate * 100).toFixed(1)} %, failures: ${kinds(s.failures)}`,
    value: unanswered,
    threshold: 0,
    verdict: unanswered === 0 ? "PASS" : "MISS",
  };
  const latency: TargetLine = {
    id: "overload-latency",
    target: latencyTarget,
    measured: `p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(1)} ms`,
    value: s.p99,
    threshold: OVERLOAD_P99_MAX_MS,
    verdict: s.p99 < OVERLOAD_P99_MAX_MS ? "PASS" : "MISS",
  };
  const mib = (v: number | undefined): string => (v === undefined ? "?" : `${v.toFixed(1)} MiB`);
  const rssText = `RSS before ${mib(o.rssBeforeMiB)}, during (max) ${mib(o.rssDuringMaxMiB)}, after ${mib(o.rssAfterMiB)}`;
  const memory: TargetLine =
    o.rssBeforeMiB === undefined || o.rssDuringMaxMiB === undefined
      ? { id: "overload-memory", target: memoryTarget, measured: rssText, threshold: OVERLOAD_RSS_GROWTH_MAX_MIB, verdict: "N/A" }
      : {
          id: "overload-memory",
          target: memoryTarget,
          measured: rssText,
          value: o.rssDuringMaxMiB - o.rssBeforeMiB,
          threshold: OVERLOAD_RSS_GROWTH_MAX_MIB,
          verdict: o.rssDuringMaxMiB - o.rssBeforeMiB < OVERLOAD_RSS_GROWTH_MAX_MIB ? "PASS" : "MISS",
        };
  return [errors, latency, memory];
}

/** Every target line of the scenario, from the load report and the overload stage (if it ran). */
export function computeTargets(report: LoadReport, overload?: OverloadResult): TargetLine[] {
  const moon = ` (moonshot ${EXECUTION_VS_ANVIL_MOONSHOT}×)`;
  const uncached = ENDPOINT.basaltUncached;
  return [
    ratioLine(report, "block-full-vs-anvil", CORPUS.blockFull, ENDPOINT.anvil, "anvil", SERVE_VS_ANVIL_MIN),
    ratioLine(report, "block-full-vs-bare", CORPUS.blockFull, ENDPOINT.bare, "bare", SERVE_VS_BARE_MIN),
    ratioLine(report, "receipts-vs-anvil", CORPUS.receipts, ENDPOINT.anvil, "anvil", SERVE_VS_ANVIL_MIN),
    ratioLine(report, "receipts-vs-bare", CORPUS.receipts, ENDPOINT.bareReceipts, "bare", SERVE_VS_BARE_MIN),
    ratioLine(report, "block-full-uncached-vs-bare", CORPUS.blockFullUncached, ENDPOINT.bareBodies, "bare", SERVE_UNCACHED_VS_BARE_MIN, uncached),
    ratioLine(report, "block-full-uncached-vs-anvil", CORPUS.blockFullUncached, ENDPOINT.anvil, "anvil", SERVE_VS_ANVIL_MIN, uncached),
    ratioLine(report, "receipts-uncached-vs-bare", CORPUS.receiptsUncached, ENDPOINT.bareBodies, "bare", SERVE_UNCACHED_VS_BARE_MIN, uncached),
    ratioLine(report, "receipts-uncached-vs-anvil", CORPUS.receiptsUncached, ENDPOINT.anvil, "anvil", SERVE_VS_ANVIL_MIN, uncached),
    ratioLine(report, "call-vs-anvil", CORPUS.callTransfer, ENDPOINT.anvil, "anvil", EXECUTION_VS_ANVIL_MIN, ENDPOINT.basalt, moon),
    latencyLine(report, "call-p99", CORPUS.callTransfer),
    ratioLine(report, "estimate-vs-anvil", CORPUS.estimateGas, ENDPOINT.anvil, "anvil", EXECUTION_VS_ANVIL_MIN, ENDPOINT.basalt, moon),
    latencyLine(report, "estimate-p99", CORPUS.estimateGas),
    ratioLine(report, "estimate-eth-vs-anvil", CORPUS.estimateEth, ENDPOINT.anvil, "anvil", EXECUTION_VS_ANVIL_MIN, ENDPOINT.basalt, moon),
    latencyLine(report, "estimate-eth-p99", CORPUS.estimateEth),
    ratioLine(report, "balance-vs-anvil", CORPUS.balance, ENDPOINT.anvil, "anvil", EXECUTION_VS_ANVIL_MIN, ENDPOINT.basalt, moon),
    ratioLine(report, "tx-receipt-vs-anvil", CORPUS.txReceipt, ENDPOINT.anvil, "anvil", EXECUTION_VS_ANVIL_MIN, ENDPOINT.basalt, moon),
    ...overloadLines(overload),
  ];
}

/** An informational ratio basalt/anvil of one corpus. */
export interface CorpusRatio {
  corpus: string;
  basalt: Figure;
  anvil: Figure;
  ratio: number;
  /** the corpus's note (e.g. repetitive) */
  note?: string;
}

/** Informational ratios basalt/anvil of every corpus both ran (not targets), with generator-bound marks and notes. */
export function allRatios(report: LoadReport): CorpusRatio[] {
  const out: CorpusRatio[] = [];
  for (const corpus of new Set(report.results.map((r) => r.corpus))) {
    const a = figure(report, ENDPOINT.basalt, corpus) ?? figure(report, ENDPOINT.basaltUncached, corpus);
    const b = figure(report, ENDPOINT.anvil, corpus);
    const note = report.results.find((r) => r.corpus === corpus)?.note;
    if (a !== undefined && b !== undefined && b.rps > 0) out.push({ corpus, basalt: a, anvil: b, ratio: a.rps / b.rps, ...(note !== undefined ? { note } : {}) });
  }
  return out;
}

/** The target lines as a plain-text table (verdict, target, measured), plus the basalt/anvil ratio of every method. */
export function formatTargets(lines: TargetLine[], report?: LoadReport): string {
  const w = Math.max(...lines.map((l) => l.target.length));
  const vw = Math.max(...lines.map((l) => l.verdict.length));
  const out = ["targets:", ...lines.map((l) => `${l.verdict.padEnd(vw)}  ${l.target.padEnd(w)}  ${l.measured}`)];
  if (report !== undefined) {
    const ratios = allRatios(report);
    const mark = (f: Figure): string => (f.bound ? " (GB)" : "");
    const row = (r: CorpusRatio, cw: number): string =>
      `  ${r.corpus.padEnd(cw)}  basalt ${fmt(r.basalt.rps).padStart(7)}${mark(r.basalt)}  anvil ${fmt(r.anvil.rps).padStart(7)}${mark(r.anvil)}  ratio ${r.ratio.toFixed(2)}`;
    const distinct = ratios.filter((r) => r.note === undefined);
    const noted = ratios.filter((r) => r.note !== undefined);
    const cw = Math.max(0, ...ratios.map((r) => r.corpus.length));
    if (distinct.length > 0) {
      out.push("", "throughput basalt/anvil per method (peak req/s, or best step when no peak; GB = GENERATOR-BOUND):");
      for (const r of distinct) out.push(row(r, cw));
    }
    if (noted.length > 0) {
      out.push("", "repetitive corpora (one body repeated: an answer cache can serve them; reported apart, never a target):");
      for (const r of noted) out.push(row(r, cw));
    }
  }
  return `${out.join("\n")}\n`;
}
