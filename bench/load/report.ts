/** Output of a load report: a plain-text table for the terminal, and JSON + HTML files. */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { renderHtml } from "./plot.js";
import { calibrationTable, failureTable, generatorLines, peakTable, stepTable, wrkLines, type Table } from "./table.js";
import type { LoadReport } from "./types.js";

/** Base name of the report files when none is given. */
export const DEFAULT_REPORT_BASENAME = "load";

/** Columns whose cells are text (left-aligned); the others are figures (right-aligned). */
const TEXT_COLUMNS = new Set(["endpoint", "corpus", "run", "failures", "size class", "from", "generator"]);

/** `t` as aligned text lines: header, rule, rows (text columns left-aligned, figures right-aligned). */
export function renderTable(t: Table): string[] {
  const widths = t.header.map((h, i) => Math.max(h.length, ...t.rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (TEXT_COLUMNS.has(t.header[i] as string) ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
      .join("  ")
      .trimEnd();
  return [line(t.header), widths.map((w) => "-".repeat(w)).join("  "), ...t.rows.map(line)];
}

/**
 * The report as a plain-text table: one row per endpoint × corpus × open-loop rate (achieved
 * req/s, ok, failed, dropped, error %, p50/p90/p99/max ms, RSS, GENERATOR-BOUND mark), then the
 * peak rows, the failure kinds of every run that had failures, and the generator: how it ran,
 * how answers were checked, its calibration (with wrk's figure and generator/wrk).
 */
export function formatTable(report: LoadReport): string {
  const m = report.machine;
  const out = [`load test ${report.startedAt} on ${m.cpus} × ${m.cpuModel}, ${m.memGiB} GiB, node ${m.node}`, ""];
  out.push("open loop (fixed offered rate, latency from the scheduled send time):", ...renderTable(stepTable(report)));
  const peak = peakTable(report);
  if (peak.rows.length > 0) out.push("", "peak (closed loop, requests in flight back to back):", ...renderTable(peak));
  const failures = failureTable(report);
  if (failures.rows.length > 0) out.push("", "failures:", ...renderTable(failures));
  const gen = generatorLines(report);
  if (gen.length > 0) out.push("", ...gen);
  const calibration = calibrationTable(report);
  if (calibration.rows.length > 0) out.push("", "generator calibration (its ceiling per answer size; wrk on the same server, bytes, connections and duration):");
  if (calibration.rows.length > 0) out.push(...renderTable(calibration), ...wrkLines(report));
  return `${out.join("\n")}\n`;
}

/**
 * Writes `<dir>/<baseName>.json` (the report) and `<dir>/<baseName>.html` ({@link renderHtml}),
 * creating `dir` if needed, and returns both paths.
 */
export function writeReport(report: LoadReport, dir: string, baseName: string = DEFAULT_REPORT_BASENAME): { json: string; html: string } {
  mkdirSync(dir, { recursive: true });
  const json = path.join(dir, `${baseName}.json`);
  const html = path.join(dir, `${baseName}.html`);
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(html, renderHtml(report));
  return { json, html };
}
