/**
 * vitest global setup for the EEST state tests: gives the shards a directory for their pass
 * counts and, after the whole vitest run, prints the combined table of every shard that ran
 * (nothing when none did, e.g. a run of other test files).
 */
import type { TestProject } from "vitest/node";
import { shardSummaries } from "../shardSummaries.js";
import { formatSummaries, type ShardSummary } from "./report.js";

/** Creates the summary directory; the returned teardown prints the combined table. */
export default function setup(project: TestProject): () => void {
  return shardSummaries<ShardSummary>((dir) => project.provide("eestSummaryDir", dir), "basalt-eest-", formatSummaries);
}
