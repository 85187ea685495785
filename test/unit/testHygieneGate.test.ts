/**
 * Gate: tests poll, never sleep a fixed time (issue 27, item 5). Every wait in test/ goes through
 * `test/helpers/poll.ts` (`pollUntil`/`waitUntil` for a condition, `settle(ms, why)` when the time
 * itself is under test); no file outside test/helpers/ writes a polling loop of its own.
 * The rules are those of `test/helpers/testHygiene.ts`; the synthetic cases show each one fails.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/basaltProcess.js";
import { scanTestSource, scanTestTree, type HygieneFinding } from "../helpers/testHygiene.js";

const rules = (fs: HygieneFinding[]): string[] => fs.map((f) => `${f.line}:${f.rule}`);

describe("test hygiene gate", () => {
  it("finds no fixed sleep and no private polling loop in test/", () => {
    const findings = scanTestTree(REPO_ROOT);
    expect(findings.map((f) => `${f.file}:${f.line} ${f.rule}: ${f.text}`)).toEqual([]);
  });

  it("reports a fixed sleep outside poll.ts, in every form", () => {
    const src = [
      "await new Promise((r) => setTimeout(r, 200));", // 1
      "await new Promise<void>((resolve) => setTimeout(() => resolve(), 50));", // 2
      "await sleep(100);", // 3
      'import { setTimeout as wait } from "node:timers/promises";', // 4
      "function delay(ms: number) { return ms; }", // 5
    ].join("\n");
    expect(rules(scanTestSource("test/e2e/synthetic.test.ts", src))).toEqual(["1:fixed-sleep", "2:fixed-sleep", "3:fixed-sleep", "4:fixed-sleep", "5:private-poll"]);
    // The same sleep in a shared helper other than poll.ts is still a sleep.
    expect(rules(scanTestSource("test/helpers/other.ts", "await new Promise((r) => setTimeout(r, 10));"))).toEqual(["1:fixed-sleep"]);
  });

  it("reports a private until/poll/waitFor loop outside test/helpers/", () => {
    const src = [
      "async function until(cond: () => boolean) { return cond(); }", // 1: a helper's name
      "const waitFor = async (f: () => boolean) => f();", // 2
      "const deadline = Date.now() + 1000;", // 3
      "while (Date.now() < deadline) { await check(); }", // 4: a deadline loop
      "for (;;) { const left = deadline - Date.now(); if (left <= 0) break; await check(); }", // 5
    ].join("\n");
    expect(rules(scanTestSource("test/unit/synthetic.test.ts", src))).toEqual(["1:private-poll", "2:private-poll", "4:private-poll", "5:private-poll"]);
    // Shared helpers may hold such loops (poll.ts is one).
    expect(scanTestSource("test/helpers/synthetic.ts", src)).toEqual([]);
  });

  it("lets bounds, scheduled actions, settle() and text in strings pass", () => {
    const src = [
      "const t = setTimeout(() => reject(new Error('timed out')), 5_000);",
      "setTimeout(() => ac.abort(), 50);",
      "setTimeout(() => child.kill('SIGKILL'), 5000);",
      'await settle(100, "a negative check: nothing arrives");',
      "await pollUntil('a block', 10_000, async () => undefined, 200);",
      "const s = 'await new Promise((r) => setTimeout(r, 200))';",
      "// await sleep(100)",
      "for (const x of xs) await check(x);",
      "console.log(`took ${Date.now() - t0} ms`);",
    ].join("\n");
    expect(scanTestSource("test/e2e/synthetic.test.ts", src)).toEqual([]);
  });

  it("scans a tree on disk and names the file and line", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), "basalt-hygiene-"));
    try {
      mkdirSync(path.join(root, "test", "e2e"), { recursive: true });
      mkdirSync(path.join(root, "test", "helpers"), { recursive: true });
      writeFileSync(path.join(root, "test", "helpers", "poll.ts"), "export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\n");
      writeFileSync(path.join(root, "test", "e2e", "bad.test.ts"), "it('x', async () => {\n  await new Promise((r) => setTimeout(r, 300));\n});\n");
      expect(scanTestTree(root).map((f) => `${f.file}:${f.line} ${f.rule}`)).toEqual(["test/e2e/bad.test.ts:2 fixed-sleep"]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
