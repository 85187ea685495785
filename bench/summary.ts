/**
 * The summary of `npm run bench`: each bench process appends its target lines (target, figure,
 * verdict) to the JSON-lines file named by {@link SUMMARY_ENV}, and bench/run.ts prints them all
 * as one table at the end. Without the variable (a bench run alone) nothing is written.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";

/** Environment variable naming the summary file (set by bench/run.ts). */
export const SUMMARY_ENV = "BASALT_BENCH_SUMMARY";

/** One target of the summary. */
export interface SummaryLine {
  /** the bench that measured it, e.g. "scenario", "traceBlock" */
  bench: string;
  /** what is required, e.g. "struct logger: basalt within 2× of anvil" */
  target: string;
  /** the figure(s) in words, with how they were measured where it matters */
  measured: string;
  /** PASS, MISS, GENERATOR-BOUND or N/A */
  verdict: string;
}

/** Appends `lines` to the summary file when {@link SUMMARY_ENV} names one. */
export function recordSummary(lines: readonly SummaryLine[], env: NodeJS.ProcessEnv = process.env): void {
  const file = env[SUMMARY_ENV];
  if (file === undefined || file === "") return;
  appendFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
}

/** The lines of a summary file (none when it does not exist). */
export function readSummary(file: string): SummaryLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as SummaryLine);
}

/** The summary as a plain-text table: verdict, bench, target, figure. */
export function formatSummary(lines: readonly SummaryLine[]): string {
  if (lines.length === 0) return "summary: no targets recorded\n";
  const vw = Math.max(...lines.map((l) => l.verdict.length));
  const bw = Math.max(...lines.map((l) => l.bench.length));
  const tw = Math.max(...lines.map((l) => l.target.length));
  const rows = lines.map((l) => `${l.verdict.padEnd(vw)}  ${l.bench.padEnd(bw)}  ${l.target.padEnd(tw)}  ${l.measured}`);
  return `summary (every target of this run):\n${rows.join("\n")}\n`;
}
