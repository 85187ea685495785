/**
 * Pass counts of the EEST blockchain tests and their table (no vitest imports: globalSetup.ts uses
 * this in vitest's main process).
 */
import { alignTable, formatShardSlowest, formatShardTimes, seconds, type ShardSummary as Summary } from "../shardSummaries.js";
import { FOLDERS, type Folder } from "./fixtures.js";

/** Pass counts of one fork folder. */
export interface Count {
  folder: Folder;
  /** Cases run and passed. */
  total: number;
  passed: number;
  /** Blocks the fixtures expect rejected, and how many of them basalt rejected. */
  invalidBlocks: number;
  rejected: number;
}

/** Sums counts per folder, in {@link FOLDERS} order. */
export function mergeCounts(parts: Count[][]): Count[] {
  const by = new Map<Folder, Count>();
  for (const c of parts.flat()) {
    const m = by.get(c.folder);
    if (m === undefined) by.set(c.folder, { ...c });
    else {
      m.total += c.total;
      m.passed += c.passed;
      m.invalidBlocks += c.invalidBlocks;
      m.rejected += c.rejected;
    }
  }
  return FOLDERS.flatMap((f) => by.get(f) ?? []);
}

/** The pass-count table: one row per folder and the total. */
export function formatCounts(counts: Count[], title: string): string {
  const rows: string[][] = [["folder", "cases passed", "invalid blocks rejected"]];
  const row = (name: string, c: Omit<Count, "folder">): string[] => [name, `${c.passed}/${c.total}`, `${c.rejected}/${c.invalidBlocks}`];
  for (const c of counts) rows.push(row(c.folder, c));
  const sum = (k: keyof Omit<Count, "folder">): number => counts.reduce((s, c) => s + c[k], 0);
  rows.push(row("total", { total: sum("total"), passed: sum("passed"), invalidBlocks: sum("invalidBlocks"), rejected: sum("rejected") }));
  return [title, ...alignTable(rows)].join("\n");
}

/** What a shard reports for the combined table (written as JSON by run.ts, read by globalSetup.ts). */
export type ShardSummary = Summary<Count>;

/** One shard's table and times. */
export function formatShard(s: ShardSummary): string {
  const cases = s.counts.reduce((n, c) => n + c.total, 0);
  return [formatCounts(s.counts, `EEST blockchain ${s.shard}: ${cases} cases, ${seconds(s.ms)} wall, ${seconds(s.cpuMs)} CPU`), ...formatShardSlowest(s)].join("\n");
}

/** The combined table of every shard that ran, the shards' times and the slowest cases overall. */
export function formatSummaries(summaries: ShardSummary[]): string {
  const sorted = [...summaries].sort((a, b) => (a.shard < b.shard ? -1 : 1));
  const cpu = sorted.reduce((t, s) => t + s.cpuMs, 0);
  const table = formatCounts(mergeCounts(sorted.map((s) => s.counts)), `EEST v5.4.0 blockchain tests (basalt's block import): pass counts of ${sorted.length} shard(s), ${seconds(cpu)} CPU in total`);
  return [table, ...formatShardTimes(sorted)].join("\n");
}
