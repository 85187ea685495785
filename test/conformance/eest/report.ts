/**
 * Pass counts of the EEST state tests and their table (no vitest imports: globalSetup.ts uses
 * this in vitest's main process).
 */
import { alignTable, formatShardSlowest, formatShardTimes, seconds, type ShardSummary as Summary } from "../shardSummaries.js";
import { FORKS, type Fork } from "./fixtures.js";

/** Pass counts of one engine on one fork. */
export interface Count {
  engine: string;
  fork: Fork;
  total: number;
  passed: number;
  fellBack: number;
}

/** Sums counts per (engine, fork). */
export function mergeCounts(parts: Count[][]): Count[] {
  const by = new Map<string, Count>();
  for (const c of parts.flat()) {
    const k = `${c.engine}/${c.fork}`;
    const m = by.get(k);
    if (m === undefined) by.set(k, { ...c });
    else {
      m.total += c.total;
      m.passed += c.passed;
      m.fellBack += c.fellBack;
    }
  }
  const forkIx = (f: Fork): number => FORKS.indexOf(f);
  return [...by.values()].sort((a, b) => (a.engine === b.engine ? forkIx(a.fork) - forkIx(b.fork) : a.engine < b.engine ? -1 : 1));
}

/** The pass-count table: one row per fork, one column per engine ("passed/total", fallbacks when any). */
export function formatCounts(counts: Count[], title: string): string {
  const engines = [...new Set(counts.map((c) => c.engine))];
  const forks = FORKS.filter((f) => counts.some((c) => c.fork === f));
  const cell = (c: Count | undefined): string => (c === undefined ? "-" : `${c.passed}/${c.total}${c.fellBack > 0 ? ` (${c.fellBack} fell back)` : ""}`);
  const rows: string[][] = [["fork", ...engines]];
  for (const f of forks) rows.push([f, ...engines.map((e) => cell(counts.find((c) => c.engine === e && c.fork === f)))]);
  const totals = engines.map((e) => {
    const cs = counts.filter((c) => c.engine === e);
    return cell({ engine: e, fork: "Prague", total: cs.reduce((s, c) => s + c.total, 0), passed: cs.reduce((s, c) => s + c.passed, 0), fellBack: cs.reduce((s, c) => s + c.fellBack, 0) });
  });
  rows.push(["total", ...totals]);
  return [title, ...alignTable(rows)].join("\n");
}

/** What a shard reports for the combined table (written as JSON by run.ts, read by globalSetup.ts). */
export type ShardSummary = Summary<Count>;

/** One shard's table and times. */
export function formatShard(s: ShardSummary): string {
  const first = s.counts[0]?.engine;
  const cases = s.counts.filter((c) => c.engine === first).reduce((n, c) => n + c.total, 0);
  return [formatCounts(s.counts, `EEST ${s.shard}: ${cases} cases, ${seconds(s.ms)} wall, ${seconds(s.cpuMs)} CPU`), ...formatShardSlowest(s)].join("\n");
}

/** The combined table of every shard that ran, the shards' times and the slowest cases overall. */
export function formatSummaries(summaries: ShardSummary[]): string {
  const sorted = [...summaries].sort((a, b) => (a.shard < b.shard ? -1 : 1));
  const cpu = sorted.reduce((t, s) => t + s.cpuMs, 0);
  const table = formatCounts(mergeCounts(sorted.map((s) => s.counts)), `EEST v5.4.0 state tests: pass counts of ${sorted.length} shard(s), ${seconds(cpu)} CPU in total`);
  return [table, ...formatShardTimes(sorted)].join("\n");
}
