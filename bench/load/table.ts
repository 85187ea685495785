/** The rows of a load report's tables (shared by the text table and the HTML page). */
import type { Calibration, LoadReport } from "./types.js";

/** The mark of a figure at or above the generator-bound fraction of the generator's calibrated ceiling. */
export const GENERATOR_BOUND = "GENERATOR-BOUND";
/** generator/wrk at or above this: the generator reaches wrk's figure against the bare server (within run-to-run noise). */
export const WRK_PARITY = 0.9;

/** What a generator/wrk ratio says. */
export function wrkVerdict(ratio: number): string {
  return ratio >= WRK_PARITY ? "the generator reaches wrk's figure against the bare handler" : "the generator is below wrk's figure: its ceiling is its own";
}

/** A table: header cells and rows of cells, all text. */
export interface Table {
  header: string[];
  rows: string[][];
}

/** Milliseconds with precision that fits their size: 0.123, 12.3, 1234. */
export function fmtMs(ms: number): string {
  if (ms < 10) return ms.toFixed(2);
  if (ms < 100) return ms.toFixed(1);
  return ms.toFixed(0);
}

/** A rate or count per second: one decimal below 100, whole numbers above. */
export function fmtRate(n: number): string {
  return n < 100 ? n.toFixed(1) : n.toFixed(0);
}

/** A 0..1 ratio as a percentage with two decimals. */
export function fmtPercent(ratio: number): string {
  return (ratio * 100).toFixed(2);
}

function fmtRss(mib: number | undefined): string {
  return mib === undefined ? "-" : mib.toFixed(1);
}

function fmtBound(bound: boolean | undefined): string {
  return bound === true ? GENERATOR_BOUND : "";
}

/** `endpoint` with the corpus's note, if any (e.g. repetitive corpora). */
function corpusCell(corpus: string, note: string | undefined): string {
  return note === undefined ? corpus : `${corpus} [${note}]`;
}

/** The open-loop step rows: one per endpoint × corpus × rate, in run order. */
export function stepTable(report: LoadReport): Table {
  const header = ["endpoint", "corpus", "rate/s", "achieved/s", "ok", "failed", "dropped", "err %"];
  header.push("p50 ms", "p90 ms", "p99 ms", "max ms", "rss MiB", "generator");
  const rows: string[][] = [];
  for (const r of report.results) {
    for (const s of r.steps) {
      rows.push([
        r.endpoint,
        corpusCell(r.corpus, r.note),
        String(s.rate),
        fmtRate(s.achievedRps),
        String(s.ok),
        String(s.failed),
        String(s.dropped),
        fmtPercent(s.errorRate),
        fmtMs(s.p50),
        fmtMs(s.p90),
        fmtMs(s.p99),
        fmtMs(s.max),
        fmtRss(s.rssMiB),
        fmtBound(s.generatorBound),
      ]);
    }
  }
  return { header, rows };
}

/** The peak rows: one per endpoint × corpus that ran a peak. */
export function peakTable(report: LoadReport): Table {
  const header = ["endpoint", "corpus", "clients", "conn×pipe", "req/s", "ok", "failed", "err %", "p50 ms", "p90 ms", "p99 ms", "max ms", "rss MiB"];
  header.push("gen cores", "ceiling/s", "generator");
  const rows: string[][] = [];
  for (const r of report.results) {
    const p = r.peak;
    if (p === undefined) continue;
    const total = p.ok + p.failed;
    const ceiling = report.generator?.calibration.find((c) => c.sizeClass === r.sizeClass && c.pipeline === (p.pipeline ?? 1))?.rps;
    rows.push([
      r.endpoint,
      corpusCell(r.corpus, r.note),
      String(p.concurrency),
      `${p.connections ?? p.concurrency}×${p.pipeline ?? 1}`,
      fmtRate(p.rps),
      String(p.ok),
      String(p.failed),
      fmtPercent(total === 0 ? 0 : p.failed / total),
      fmtMs(p.p50),
      fmtMs(p.p90),
      fmtMs(p.p99),
      fmtMs(p.max),
      fmtRss(p.rssMiB),
      p.generatorCpu === undefined ? "-" : p.generatorCpu.toFixed(2),
      ceiling === undefined ? "-" : fmtRate(ceiling),
      fmtBound(p.generatorBound),
    ]);
  }
  return { header, rows };
}

/** generator/wrk of a calibration, when wrk ran. */
export function wrkRatio(c: Calibration): number | undefined {
  return c.wrk === undefined || c.wrk.rps <= 0 ? undefined : c.rps / c.wrk.rps;
}

/** The calibration rows: per size class and pipelining, the generator's ceiling against the bare server, wrk's, and their ratio. */
export function calibrationTable(report: LoadReport): Table {
  const header = ["size class", "answer B", "from", "conn×pipe", "generator/s", "gen cores", "busiest", "wrk/s", "generator/wrk"];
  const rows = (report.generator?.calibration ?? []).map((c) => {
    const ratio = wrkRatio(c);
    return [
      c.sizeClass,
      String(c.answerBytes),
      `${c.corpus} @ ${c.endpoint}`,
      `${c.connections}×${c.pipeline}`,
      fmtRate(c.rps),
      c.generatorCpu.toFixed(2),
      `${Math.round(c.generatorBusy * 100)} %`,
      c.wrk === undefined ? "-" : fmtRate(c.wrk.rps),
      ratio === undefined ? (c.wrkNote ?? "-") : ratio.toFixed(2),
    ];
  });
  return { header, rows };
}

/** The failure rows: endpoint, corpus, run ("16/s" or "peak") and kinds with counts, for every run with failures. */
export function failureTable(report: LoadReport): Table {
  const rows: string[][] = [];
  const kinds = (f: Record<string, number>): string =>
    Object.entries(f)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ×${n}`)
      .join(", ");
  for (const r of report.results) {
    for (const s of r.steps) if (s.failed > 0) rows.push([r.endpoint, r.corpus, `${s.rate}/s`, kinds(s.failures)]);
    if (r.peak !== undefined && r.peak.failed > 0) rows.push([r.endpoint, r.corpus, "peak", kinds(r.peak.failures)]);
  }
  return { header: ["endpoint", "corpus", "run", "failures"], rows };
}

/** How answers were checked, in words (sampling of large answers stated). */
export function describeChecks(report: LoadReport): string {
  const g = report.generator;
  if (g === undefined) return "every answer parsed and checked";
  let unchecked = 0;
  for (const r of report.results) for (const x of [...r.steps, ...(r.peak !== undefined ? [r.peak] : [])]) unchecked += x.unchecked ?? 0;
  if (g.sampleBytes === null) return "every answer parsed and checked";
  return (
    `answers ≤ ${g.sampleBytes} B all parsed and checked; larger ones: status and framing of every one, body of one in ceil(size / ${g.sampleBytes} B) ` +
    `parsed and checked (${unchecked} ok calls accepted on status and framing alone)`
  );
}

/** The generator's lines: threads, pipelining, checks, and the meaning of GENERATOR-BOUND. */
export function generatorLines(report: LoadReport): string[] {
  const g = report.generator;
  if (g === undefined) return [];
  const lines = [
    `generator: ${g.threads} thread${g.threads === 1 ? "" : "s"}, peak pipelining ${g.pipeline} per connection (where the endpoint answers a pipelined probe correctly)`,
    `checks: ${describeChecks(report)}`,
  ];
  if (g.calibrationNote !== undefined) lines.push(`calibration: ${g.calibrationNote}`);
  else {
    lines.push(
      `${GENERATOR_BOUND}: a figure ≥ ${Math.round(g.boundFraction * 100)} % of the generator's own ceiling for that answer size ` +
        "(measured in this run against a bare uWebSockets.js server answering the same bytes with no work): it may be the generator's limit, not the server's",
    );
  }
  return lines;
}

/** One `generator/wrk` line per calibration that ran wrk. */
export function wrkLines(report: LoadReport): string[] {
  return (report.generator?.calibration ?? []).flatMap((c) => {
    const ratio = wrkRatio(c);
    if (ratio === undefined) return [];
    return [`generator/wrk ${c.sizeClass} (${c.connections}×${c.pipeline}): ${ratio.toFixed(2)} — ${wrkVerdict(ratio)}`];
  });
}
