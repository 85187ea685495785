/**
 * The `npm run bench` summary (bench/summary.ts): bench processes append target lines to the file
 * BASALT_BENCH_SUMMARY names (nothing without it), and the table lists each with its verdict.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatSummary, readSummary, recordSummary, SUMMARY_ENV } from "../../../bench/summary.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-bench-summary-");

describe("bench summary", () => {
  it("appends lines from several benches and prints them as one table", () => {
    const file = path.join(tmp(), "summary.jsonl");
    const env = { [SUMMARY_ENV]: file };
    recordSummary([{ bench: "traceBlock", target: "struct logger within 2× of anvil", measured: "basalt 102 ms / anvil 11 ms = 9.27", verdict: "MISS" }], env);
    recordSummary([{ bench: "flashblocks", target: "readable p99 < 5 ms", measured: "p99 4.1 ms", verdict: "PASS" }], env);
    const lines = readSummary(file);
    expect(lines.map((l) => l.bench)).toEqual(["traceBlock", "flashblocks"]);
    const text = formatSummary(lines);
    expect(text).toContain("MISS  traceBlock   struct logger within 2× of anvil  basalt 102 ms / anvil 11 ms = 9.27");
    expect(text).toContain("PASS  flashblocks  readable p99 < 5 ms");
  });

  it("writes nothing without the variable, and reads a missing file as empty", () => {
    const file = path.join(tmp(), "none.jsonl");
    recordSummary([{ bench: "x", target: "t", measured: "m", verdict: "PASS" }], {});
    expect(existsSync(file)).toBe(false);
    expect(readSummary(file)).toEqual([]);
    expect(formatSummary([])).toBe("summary: no targets recorded\n");
  });
});
