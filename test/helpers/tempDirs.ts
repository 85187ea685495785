/**
 * Temporary directories for one test file: `const tmp = tempDirs("basalt-x-")` registers an
 * `afterAll` that removes every directory `tmp()` made.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

/** A maker of fresh directories under os.tmpdir() (named by `prefix`, or the one given per call), all removed after the file's tests. */
export function tempDirs(prefix = "basalt-test-"): (prefixOfThisOne?: string) => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return (prefixOfThisOne = prefix) => {
    const d = mkdtempSync(path.join(os.tmpdir(), prefixOfThisOne));
    dirs.push(d);
    return d;
  };
}
