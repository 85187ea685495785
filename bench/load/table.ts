/** The rows of a load report's tables (shared by the text table and the HTML page). */
import type { LoadReport } from "./types.js";

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

/** The open-loop step rows: one per endpoint × corpus × rate, in run order. */
export function stepTable(report: LoadReport): Table {
  const header = ["endpoint", "corpus", "rate/s", "achieved/s", "ok", "failed", "dropped", "err %"];
  header.push("p50 ms", "p90 ms", "p99 ms", "max ms", "rss MiB");
  const rows: string[][] = [];
  for (const r of report.results) {
    for (const s of r.steps) {
      rows.push([
        r.endpoint,
        r.corpus,
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
      ]);
    }
  }
  return { header, rows };
}

/** The peak rows: one per endpoint × corpus that ran a peak. */
export function peakTable(report: LoadReport): Table {
  const header = ["endpoint", "corpus", "clients", "req/s", "ok", "failed", "err %", "p50 ms", "p90 ms", "p99 ms", "max ms", "rss MiB"];
  const rows: string[][] = [];
  for (const r of report.results) {
    const p = r.peak;
    if (p === undefined) continue;
    const total = p.ok + p.failed;
    rows.push([
      r.endpoint,
      r.corpus,
      String(p.concurrency),
      fmtRate(p.rps),
      String(p.ok),
      String(p.failed),
      fmtPercent(total === 0 ? 0 : p.failed / total),
      fmtMs(p.p50),
      fmtMs(p.p90),
      fmtMs(p.p99),
      fmtMs(p.max),
      fmtRss(p.rssMiB),
    ]);
  }
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
