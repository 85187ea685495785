/**
 * The shared part of the conformance suites' summaries (EEST state tests, EEST blockchain tests):
 * for their vitest global setups, a directory the shards write their JSON summaries to and, after
 * the whole vitest run, one combined table of every shard that ran (nothing when none did); and the
 * text-table layout of their pass counts.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Creates the summary directory (named `<prefix>…` under the OS temp dir) and hands it to the
 * shards through `provide`; the returned teardown prints `format` of the summaries and removes it.
 */
export function shardSummaries<S>(provide: (dir: string) => void, prefix: string, format: (summaries: S[]) => string): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  provide(dir);
  return () => {
    try {
      const summaries = readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")) as S);
      if (summaries.length > 0) console.log(`\n${format(summaries)}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** The lines of a text table: the first column left-aligned, the others right-aligned, two spaces apart. */
export function alignTable(rows: readonly string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((x, i) => (i === 0 ? x.padEnd(widths[i] as number) : x.padStart(widths[i] as number))).join("  "));
}

/** How many of the slowest cases a summary keeps. */
export const SLOWEST = 10;

/** A slow case of a summary: its id, wall-clock ms, and the engine that ran it (state tests). */
export interface SlowCase {
  id: string;
  ms: number;
  engine?: string;
}

/** What a shard reports for the combined table (written as JSON by its run.ts, read by its globalSetup.ts). */
export interface ShardSummary<C> {
  shard: string;
  /** Wall-clock milliseconds of the shard. */
  ms: number;
  /** CPU milliseconds of the shard (the measure that does not depend on other load). */
  cpuMs: number;
  counts: C[];
  /** The {@link SLOWEST} slowest cases, slowest first. */
  slowest: SlowCase[];
}

/** The summary of a shard's run: its times and counts, and the slowest of `results`. */
export function summarize<C>(shard: string, run: { ms: number; cpuMs: number; counts: C[] }, results: readonly SlowCase[]): ShardSummary<C> {
  const slowest = [...results]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, SLOWEST)
    .map((r) => (r.engine === undefined ? { id: r.id, ms: r.ms } : { engine: r.engine, id: r.id, ms: r.ms }));
  return { shard, ms: run.ms, cpuMs: run.cpuMs, counts: run.counts, slowest };
}

/** Milliseconds as seconds with one decimal ("12.3 s"). */
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** A slow case as a line (`indent`, its time padded to `width`, engine and id). */
const slowLine = (x: SlowCase, width = 0): string => `  ${seconds(x.ms).padStart(width)} ${x.engine === undefined ? "" : `${x.engine} `}${x.id}`;

/** The lines of one shard's summary after its table: its three slowest cases. */
export function formatShardSlowest(s: ShardSummary<unknown>): string[] {
  return ["slowest:", ...s.slowest.slice(0, 3).map((x) => slowLine(x))];
}

/** The lines after the combined table: each shard's times, and the {@link SLOWEST} slowest cases of all. */
export function formatShardTimes(sorted: readonly ShardSummary<unknown>[]): string[] {
  const times = sorted.map((s) => `  ${s.shard.padEnd(18)} ${seconds(s.ms).padStart(9)} wall ${seconds(s.cpuMs).padStart(9)} CPU`);
  const slow = sorted
    .flatMap((s) => s.slowest)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, SLOWEST)
    .map((x) => slowLine(x, 8));
  return ["shards:", ...times, "slowest cases:", ...slow];
}
