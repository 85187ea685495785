/**
 * Gate (issue 27): no dead export. Every name a file of src/ or workers/ exports is imported by
 * another file (src, workers, test, bench), or used by its own file. An export nothing uses at all
 * is dead code and fails the gate; `noUnusedLocals` (tsconfig.json) then catches it once
 * un-exported. Exports that only their own file uses need no `export`: their number may only go
 * down (LOCAL_ONLY_CEILING, lowered as they are un-exported).
 *
 * Entry points outside the import graph: the CLI runs through bin/basalt.js → src/cli/main.ts
 * (which exports nothing); workers/execution.ts's task functions are called by name by the
 * piscina pool (`name: "call"`, …), so its exports count as used.
 */
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/basaltProcess.js";
import { deadExports, readSources } from "../helpers/sourceGates.js";

/** Thread entry points whose exports are called by name, not imported. */
const ENTRY_POINTS = new Set(["workers/execution.ts"]);

/**
 * Exports only their own file uses (issue 27: 631 at 8d158d4; 32 once issue 27 was merged). What
 * is left: 31 error classes, kept exported as their subsystem's API (a caller tells its errors
 * apart with `instanceof`, and the error registry rebuilds them by class), and `RpcErrorCode`
 * (the codes `src/rpc/errors.ts` maps). A ratchet: lower it when un-exporting; it may never go up.
 */
const LOCAL_ONLY_CEILING = 32;

describe("dead exports", () => {
  const dead = deadExports(readSources(REPO_ROOT, ["src", "workers"]), readSources(REPO_ROOT, ["test", "bench"]), ENTRY_POINTS);

  it("every export of src/ and workers/ is used somewhere", () => {
    expect(dead.filter((d) => !d.usedInFile).map((d) => d.at)).toEqual([]);
  });

  it(`exports used only by their own file stay at most ${LOCAL_ONLY_CEILING}`, () => {
    const localOnly = dead.filter((d) => d.usedInFile);
    expect(localOnly.length, localOnly.map((d) => d.at).join("\n")).toBeLessThanOrEqual(LOCAL_ONLY_CEILING);
  });

  it("the check finds an unused export and one only its file uses, through re-exports and namespace imports", () => {
    const checked = [
      { path: "src/a/lib.ts", text: "export const used = 1;\nexport const dead = 2;\nexport function local() { return 3; }\nexport const viaLocal = local();\nexport type Shape = { x: number };\nexport default 4;\n" },
      { path: "src/a/index.ts", text: 'export * from "./lib.js";\nexport { used as alsoUsed } from "./lib.js";\n' },
      { path: "src/b/ns.ts", text: "export const a = 1;\nexport const b = 2;\n" },
      { path: "src/b/user.ts", text: 'import { used } from "../a/index.js";\nimport * as ns from "./ns.js";\nimport type { Shape } from "../a/lib.js";\nconst s: Shape = { x: used + ns.a };\nvoid s;\n' },
    ];
    const users = [{ path: "test/x.test.ts", text: 'import { viaLocal } from "../src/a/lib.js";\nimport lib from "../src/a/lib.js";\nvoid [viaLocal, lib];\n' }];
    expect(deadExports(checked, users)).toEqual([
      { at: "src/a/index.ts:2 alsoUsed", usedInFile: false },
      { at: "src/a/lib.ts:2 dead", usedInFile: false },
      { at: "src/a/lib.ts:3 local", usedInFile: true },
    ]);
    // An entry point's exports all count as used.
    expect(deadExports(checked, users, new Set(["src/a/lib.ts", "src/a/index.ts"]))).toEqual([]);
  });
});
