/**
 * docs/ARCHITECTURE.md "Threads per subsystem" stays true: its tables are what
 * `test/helpers/threadMap.ts` computes from the imports of each thread's entry point. After moving
 * code between threads, regenerate with `BASALT_UPDATE_DOCS=1 npx vitest run test/unit/threadsDoc.test.ts`.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/basaltProcess.js";
import { renderThreadTables, threadMap, THREADS_BEGIN, THREADS_END } from "../helpers/threadMap.js";

const DOC = path.join(REPO_ROOT, "docs", "ARCHITECTURE.md");
const map = threadMap(REPO_ROOT);

describe("ARCHITECTURE.md: threads per subsystem", () => {
  it("puts each worker's own files on that worker alone", () => {
    // A check of the map itself, so a broken import walk cannot pass: each worker's own code is its alone.
    expect(map.get("src/flashblocks/pendingBuilder.ts")).toBe("F");
    expect(map.get("src/derivation/driver.ts")).toBe("D");
    expect(map.get("src/execution/pool/executionPool.ts")).toBe("M");
    expect(map.get("src/cli/commands/node.ts")).toBe("M");
  });

  it("matches the tables in docs/ARCHITECTURE.md", () => {
    const doc = readFileSync(DOC, "utf8");
    const begin = doc.indexOf(THREADS_BEGIN);
    const end = doc.indexOf(THREADS_END);
    expect(begin, "docs/ARCHITECTURE.md lacks the threads-per-subsystem markers").toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(begin);
    const want = `${THREADS_BEGIN}\n\n${renderThreadTables(REPO_ROOT, map)}\n${THREADS_END}`;
    const have = doc.slice(begin, end + THREADS_END.length);
    if (have !== want && process.env.BASALT_UPDATE_DOCS === "1") {
      writeFileSync(DOC, doc.slice(0, begin) + want + doc.slice(end + THREADS_END.length));
      return;
    }
    expect(have, "stale: run BASALT_UPDATE_DOCS=1 npx vitest run test/unit/threadsDoc.test.ts").toBe(want);
  });
});
