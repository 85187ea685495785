/**
 * The shared runner of the EEST state tests: runs every selected case on every engine of
 * {@link ENGINES}, compares each outcome with the fixture, and checks the failures against the
 * known-failures list (docs/conformance/eest-known-failures.md):
 *
 * - every failing case of every engine must be listed (with a reason);
 * - every listed case of the run must still fail (no stale entries);
 * - an engine other than the reference must pass every case the reference passes.
 *
 * Each `*.test.ts` here is one shard ({@link SHARDS}), so vitest's worker processes share the
 * run. Each shard writes its pass counts for the combined table that `globalSetup.ts` prints at
 * the end of the vitest run; each shard also prints its own table, times and slowest cases.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import type { StateTestEngine, StateTestOutcome } from "./engine.js";
import { ENGINES, REFERENCE_ENGINE } from "./engines.js";
import { FORKS, iterateCases, selects, shard, toHex, type CaseSelection, type Fork, type StateTestCase } from "./fixtures.js";
import { KNOWN_FAILURES_FILE, formatRow, loadKnownFailures, type KnownFailure } from "./knownFailures.js";
import { formatShard, type Count } from "./report.js";
import { summarize } from "../shardSummaries.js";

/** A shard of the run: a named selection of cases (one test file each, `<name>.test.ts`). */
export interface ShardSpec {
  name: string;
  selection: Required<CaseSelection>;
}

/**
 * The shards of the run. Their selections partition the fixtures' cases (fixtures.test.ts
 * checks it, and that each shard has its test file). Sized from measured run times so both
 * cores stay busy to the end: Prague, the largest fork, is split most.
 */
export const SHARDS: readonly ShardSpec[] = [
  ...[0, 1, 2, 3, 4].map((i) => ({ name: `prague-${i + 1}`, selection: { forks: ["Prague"] as Fork[], shard: shard(i, 5) } })),
  ...[0, 1].map((i) => ({ name: `osaka-${i + 1}`, selection: { forks: ["Osaka"] as Fork[], shard: shard(i, 2) } })),
  { name: "cancun-and-older", selection: { forks: ["Berlin", "London", "Paris", "Shanghai", "Cancun"] as Fork[], shard: shard(0, 1) } },
];

/** The result of one engine on one case. */
export interface CaseResult {
  id: string;
  fork: Fork;
  engine: string;
  passed: boolean;
  /** What differed (one line), when failed. */
  reason?: string;
  fellBackTo?: string;
  /** Wall-clock milliseconds of the engine's `run`. */
  ms: number;
}

/** What a shard's run produced. */
export interface ShardReport {
  shard: string;
  engines: string[];
  /** Results by engine, in case order. */
  results: Map<string, CaseResult[]>;
  counts: Count[];
  /** Wall-clock milliseconds of the whole shard (fixture parsing included). */
  ms: number;
  /** CPU milliseconds (user + system) of the shard's process over the run. */
  cpuMs: number;
}

/** Compares an outcome with the fixture: undefined when it passes, else what differed (one line). */
export function judge(c: StateTestCase, o: StateTestOutcome): string | undefined {
  const diffs: string[] = [];
  if (c.expectException !== undefined && o.rejected === undefined) diffs.push(`accepted a transaction the fixture rejects (${c.expectException})`);
  if (c.expectException === undefined && o.rejected !== undefined) diffs.push(`rejected a valid transaction: ${o.rejected}`);
  if (toHex(o.stateRoot) !== toHex(c.expectedRoot)) diffs.push(`state root ${toHex(o.stateRoot)}, expected ${toHex(c.expectedRoot)}`);
  if (toHex(o.logsHash) !== toHex(c.expectedLogsHash)) diffs.push(`logs hash ${toHex(o.logsHash)}, expected ${toHex(c.expectedLogsHash)}`);
  return diffs.length === 0 ? undefined : diffs.join("; ").replace(/\s+/g, " ");
}

async function runOne(engine: StateTestEngine, c: StateTestCase): Promise<CaseResult> {
  const start = performance.now();
  let outcome: StateTestOutcome | undefined;
  let reason: string | undefined;
  try {
    outcome = await engine.run(c);
    reason = judge(c, outcome);
  } catch (e) {
    reason = `engine threw: ${e instanceof Error ? e.message : String(e)}`.replace(/\s+/g, " ").slice(0, 400);
  }
  const ms = performance.now() - start;
  return { id: c.id, fork: c.fork, engine: engine.name, passed: reason === undefined, reason, fellBackTo: outcome?.fellBackTo, ms };
}

/** Runs every selected case on every engine (engines in list order, case by case). */
export async function runSelection(name: string, selection: CaseSelection, engines: readonly StateTestEngine[] = ENGINES): Promise<ShardReport> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const results = new Map<string, CaseResult[]>(engines.map((e) => [e.name, []]));
  for (const c of iterateCases(selection)) {
    for (const engine of engines) (results.get(engine.name) as CaseResult[]).push(await runOne(engine, c));
  }
  const counts: Count[] = [];
  for (const engine of engines) {
    for (const fork of FORKS) {
      const rs = (results.get(engine.name) as CaseResult[]).filter((r) => r.fork === fork);
      if (rs.length === 0) continue;
      counts.push({ engine: engine.name, fork, total: rs.length, passed: rs.filter((r) => r.passed).length, fellBack: rs.filter((r) => r.fellBackTo !== undefined).length });
    }
  }
  const used = process.cpuUsage(cpu);
  return { shard: name, engines: engines.map((e) => e.name), results, counts, ms: performance.now() - start, cpuMs: (used.user + used.system) / 1000 };
}

/** The failing results (of one engine) that the known-failures list does not name. */
export function unlistedFailures<R extends { id: string; passed: boolean }>(results: readonly R[], listed: readonly { caseId: string }[]): R[] {
  const ids = new Set(listed.map((k) => k.caseId));
  return results.filter((r) => !r.passed && !ids.has(r.id));
}

/** Listed entries (of one engine, for the cases of this run) whose case passed or did not run, with why. */
export function staleEntries<K extends { caseId: string }>(results: readonly { id: string; passed: boolean }[], listed: readonly K[]): Array<{ entry: K; why: string }> {
  const byId = new Map(results.map((r) => [r.id, r]));
  return listed
    .filter((k) => byId.get(k.caseId)?.passed !== false)
    .map((entry) => ({ entry, why: byId.has(entry.caseId) ? "now passes" : "is no case of the fixtures" }));
}

/** Cases `results` fails that the reference passes (the regression gate of a non-reference engine). */
export function regressions(results: readonly CaseResult[], reference: readonly CaseResult[]): CaseResult[] {
  const passedByReference = new Set(reference.filter((r) => r.passed).map((r) => r.id));
  return results.filter((r) => !r.passed && passedByReference.has(r.id));
}

/** A failure to report: the case, the engine and what differed. */
function describeFailure(r: CaseResult): string {
  return `  ${r.engine} ${r.id}\n    ${r.reason ?? "(no reason)"}`;
}

/** Where shard summaries go for the combined table (`key`: set by a globalSetup.ts), if anywhere. */
export function summaryDir(key: "eestSummaryDir" | "eestBlockchainSummaryDir"): string | undefined {
  try {
    return inject(key);
  } catch {
    return undefined;
  }
}

/** Prints a shard's summary and writes it as `<shard>.json` for the combined table, when the global setup asked for it. */
export function publishSummary(key: "eestSummaryDir" | "eestBlockchainSummaryDir", summary: { shard: string }, text: string): void {
  console.log(text);
  const dir = summaryDir(key);
  if (dir === undefined) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${summary.shard}.json`), JSON.stringify(summary));
}

/**
 * Defines the vitest suite of one shard: runs it once (beforeAll), then asserts the known-failure
 * list per engine and the fast-engine regression gate.
 */
export function describeShard(name: string): void {
  const spec = SHARDS.find((s) => s.name === name);
  if (spec === undefined) throw new Error(`unknown EEST shard ${name}`);
  const forks = spec.selection.forks.join(", ");
  describe(`EEST state tests, ${name} (${forks}, shard ${spec.selection.shard.index + 1}/${spec.selection.shard.count})`, () => {
    let report: ShardReport | undefined;
    let known: KnownFailure[] = [];

    beforeAll(async () => {
      known = loadKnownFailures();
      report = await runSelection(name, spec.selection);
      const summary = summarize(name, report, [...report.results.values()].flat());
      publishSummary("eestSummaryDir", summary, formatShard(summary));
    }, 3 * 60 * 60 * 1000);

    const current = (): ShardReport => {
      if (report === undefined) throw new Error("the shard did not run");
      return report;
    };
    /** Known failures of this engine whose case belongs to this shard. */
    const listedHere = (engine: string): KnownFailure[] => known.filter((k) => k.engine === engine && selects(spec.selection, k.fork, k.caseId));

    it("runs cases", () => {
      const r = current();
      expect(r.results.get(REFERENCE_ENGINE)?.length ?? 0, `no cases selected for ${name}`).toBeGreaterThan(0);
    });

    for (const engine of ENGINES) {
      it(`${engine.name}: every failing case is listed in ${path.basename(KNOWN_FAILURES_FILE)}`, () => {
        const unlisted = unlistedFailures(current().results.get(engine.name) ?? [], listedHere(engine.name));
        const hint = unlisted.length === 0 ? "" : `\nrows to add once understood:\n${unlisted.map((r) => formatRow(r.engine, r.id, r.reason ?? "")).join("\n")}`;
        expect(unlisted.length, `${unlisted.length} failing case(s) not in ${KNOWN_FAILURES_FILE}:\n${unlisted.map(describeFailure).join("\n")}${hint}`).toBe(0);
      });

      it(`${engine.name}: every listed case of this shard still fails (no stale entries)`, () => {
        const stale = staleEntries(current().results.get(engine.name) ?? [], listedHere(engine.name));
        const lines = stale.map(({ entry, why }) => `  line ${entry.line}: ${entry.caseId} ${why}`);
        expect(stale.length, `${stale.length} stale entr(y/ies) in ${KNOWN_FAILURES_FILE}:\n${lines.join("\n")}`).toBe(0);
      });

      if (engine.name !== REFERENCE_ENGINE) {
        it(`${engine.name}: passes every case the reference passes`, () => {
          const worse = regressions(current().results.get(engine.name) ?? [], current().results.get(REFERENCE_ENGINE) ?? []);
          expect(worse.length, `${engine.name} fails ${worse.length} case(s) the reference passes:\n${worse.map(describeFailure).join("\n")}`).toBe(0);
        });
      }
    }
  });
}

declare module "vitest" {
  interface ProvidedContext {
    /** Directory where the EEST shards write their counts for the combined table. */
    eestSummaryDir: string;
  }
}
