/**
 * vitest global setup for the EEST state tests: gives the shards a directory for their pass
 * counts and, after the whole vitest run, prints the combined table of every shard that ran
 * (nothing when none did, e.g. a run of other test files).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { formatSummaries, type ShardSummary } from "./report.js";

/** Creates the summary directory; the returned teardown prints the combined table. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-eest-"));
  project.provide("eestSummaryDir", dir);
  return () => {
    try {
      const summaries = readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => JSON.parse(readFileSync(path.join(dir, f), "utf8")) as ShardSummary);
      if (summaries.length > 0) console.log(`\n${formatSummaries(summaries)}\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}
