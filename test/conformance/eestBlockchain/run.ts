/**
 * The runner of the EEST blockchain tests: imports every selected case's blocks through basalt's
 * block import (runCase.ts), and checks the failures against the known-failures list
 * (docs/conformance/eest-blockchain-known-failures.md):
 *
 * - every failing case must be listed (with a reason);
 * - every listed case of the run must still fail (no stale entries).
 *
 * Each `*.test.ts` here is one shard ({@link SHARDS}), so vitest's worker processes share the
 * run. Each shard writes its pass counts for the combined table that `globalSetup.ts` prints at the
 * end of the vitest run, and prints its own table, times and slowest cases.
 */
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shard } from "../eest/fixtures.js";
import { publishSummary, staleEntries, unlistedFailures } from "../eest/run.js";
import { FOLDERS, iterateCases, selects, type CaseSelection, type Folder } from "./fixtures.js";
import { KNOWN_FAILURES_FILE, formatRow, loadKnownFailures, type KnownFailure } from "./knownFailures.js";
import { formatShard, type Count } from "./report.js";
import { summarize } from "../shardSummaries.js";
import { runCase } from "./runCase.js";

/** A shard of the run: a named selection of cases (one test file each, `<name>.test.ts`). */
export interface ShardSpec {
  name: string;
  selection: Required<CaseSelection>;
}

/** `count` shards of one folder, named `<folder>-1` … `<folder>-<count>`. */
const folderShards = (folder: Folder, count: number): ShardSpec[] =>
  Array.from({ length: count }, (_, i) => ({ name: `${folder}-${i + 1}`, selection: { folders: [folder], shard: shard(i, count) } }));

/**
 * The shards of the run. Their selections partition the fixtures' cases (fixtures.test.ts checks
 * it, and that each shard has its test file). Sized by measured CPU time so that no shard is much
 * longer than the others and both cores stay busy to the end.
 */
export const SHARDS: readonly ShardSpec[] = [...folderShards("cancun", 2), ...folderShards("prague", 2), ...folderShards("osaka", 1)];

/** The result of one case. */
export interface CaseResult {
  id: string;
  folder: Folder;
  passed: boolean;
  /** What differed (one line), when failed. */
  reason?: string;
  /** Blocks the fixture expects rejected, and how many basalt rejected. */
  invalidBlocks: number;
  rejected: number;
  /** Wall-clock milliseconds of the case. */
  ms: number;
}

/** What a shard's run produced. */
export interface ShardReport {
  shard: string;
  results: CaseResult[];
  counts: Count[];
  /** Wall-clock milliseconds of the whole shard (fixture parsing included). */
  ms: number;
  /** CPU milliseconds (user + system) of the shard's process over the run. */
  cpuMs: number;
}

/**
 * Where the cases' datadirs go: the memory file system (`/dev/shm`) when there is one, else the
 * OS temp dir. Creating an LMDB environment and committing the genesis cost about 95 ms per case on
 * the development machine's disk against 18 ms in memory (measured over 49 cases), most of a
 * typical one-block case: nothing in the tests depends on durability.
 */
export function datadirRoot(): string {
  const shm = "/dev/shm";
  try {
    accessSync(shm, constants.W_OK);
    return shm;
  } catch {
    return os.tmpdir();
  }
}

/** Runs every selected case, each in its own temporary datadir under one directory (removed afterwards). */
export async function runSelection(name: string, selection: CaseSelection): Promise<ShardReport> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const results: CaseResult[] = [];
  const tmpRoot = mkdtempSync(path.join(datadirRoot(), `basalt-eest-bc-${name}-`));
  try {
    for (const c of iterateCases(selection)) {
      const t0 = performance.now();
      const outcome = await runCase(c, tmpRoot);
      const invalid = outcome.blocks.filter((b) => b.expected !== undefined);
      results.push({
        id: c.id,
        folder: c.folder,
        passed: outcome.failure === undefined,
        reason: outcome.failure,
        invalidBlocks: c.blocks.filter((b) => b.expectException !== undefined).length,
        rejected: invalid.filter((b) => b.rejected !== undefined).length,
        ms: performance.now() - t0,
      });
    }
  } finally {
    rmSync(tmpRoot, { recursive: true, force: true });
  }
  const counts: Count[] = [];
  for (const folder of FOLDERS) {
    const rs = results.filter((r) => r.folder === folder);
    if (rs.length === 0) continue;
    const sum = (f: (r: CaseResult) => number): number => rs.reduce((s, r) => s + f(r), 0);
    counts.push({ folder, total: rs.length, passed: sum((r) => (r.passed ? 1 : 0)), invalidBlocks: sum((r) => r.invalidBlocks), rejected: sum((r) => r.rejected) });
  }
  const used = process.cpuUsage(cpu);
  return { shard: name, results, counts, ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

/** Defines the vitest suite of one shard: runs it once (beforeAll), then asserts the known-failure list. */
export function describeShard(name: string): void {
  const spec = SHARDS.find((s) => s.name === name);
  if (spec === undefined) throw new Error(`unknown EEST blockchain shard ${name}`);
  const { folders, shard: part } = spec.selection;
  describe(`EEST blockchain tests, ${name} (${folders.join(", ")}, shard ${part.index + 1}/${part.count})`, () => {
    let report: ShardReport | undefined;
    let known: KnownFailure[] = [];

    beforeAll(async () => {
      known = loadKnownFailures();
      report = await runSelection(name, spec.selection);
      const summary = summarize(name, report, report.results);
      publishSummary("eestBlockchainSummaryDir", summary, formatShard(summary));
    }, 60 * 60 * 1000);

    afterAll(() => {
      report = undefined;
    });

    const current = (): ShardReport => {
      if (report === undefined) throw new Error("the shard did not run");
      return report;
    };
    /** Known failures whose case belongs to this shard. */
    const listedHere = (): KnownFailure[] => {
      const folderOfId = (id: string): Folder | undefined => FOLDERS.find((f) => id.startsWith(`tests/${f}/`));
      return known.filter((k) => {
        const folder = folderOfId(k.caseId);
        return folder !== undefined && selects(spec.selection, folder, k.caseId);
      });
    };

    it("runs cases", () => {
      expect(current().results.length, `no cases selected for ${name}`).toBeGreaterThan(0);
    });

    it(`every failing case is listed in ${path.basename(KNOWN_FAILURES_FILE)}`, () => {
      const unlisted = unlistedFailures(current().results, listedHere());
      const lines = unlisted.map((r) => `  ${r.id}\n    ${r.reason ?? "(no reason)"}`);
      const hint = unlisted.length === 0 ? "" : `\nrows to add once understood:\n${unlisted.map((r) => formatRow(r.id, r.reason ?? "")).join("\n")}`;
      expect(unlisted.length, `${unlisted.length} failing case(s) not in ${KNOWN_FAILURES_FILE}:\n${lines.join("\n")}${hint}`).toBe(0);
    });

    it("every listed case of this shard still fails (no stale entries)", () => {
      const stale = staleEntries(current().results, listedHere());
      const lines = stale.map(({ entry, why }) => `  line ${entry.line}: ${entry.caseId} ${why}`);
      expect(stale.length, `${stale.length} stale entr(y/ies) in ${KNOWN_FAILURES_FILE}:\n${lines.join("\n")}`).toBe(0);
    });
  });
}

declare module "vitest" {
  interface ProvidedContext {
    /** Directory where the EEST blockchain shards write their counts for the combined table. */
    eestBlockchainSummaryDir: string;
  }
}
