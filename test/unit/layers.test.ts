/**
 * The layer order of src/ (docs/ARCHITECTURE.md "Layers"): every relative import of every
 * `src/**\/*.ts` file (and the thread entry points in workers/) goes to the same folder, a folder
 * of a lower layer, or a folder of the same layer without closing a cycle between folders.
 * Type-only imports count: they couple the folders as much as value imports do.
 *
 * And no import cycle between files (src/ and workers/): a cycle makes the evaluation order of its
 * modules depend on which one is loaded first, and says that a declaration sits in the wrong file
 * (the usual cure: move the shared types or helpers to a file both import). Type-only imports
 * count here too — they are erased at run time, but the cycle they close is the same misplaced
 * declaration (issue 27 counted three such cycles, each closed by an `import type`).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/basaltProcess.js";
import { fileCycles, readSources, stronglyConnected } from "../helpers/sourceGates.js";

/** Top-level folders (under src/, plus workers/) by layer; a folder imports only its own layer or lower. */
const LAYERS: Readonly<Record<string, number>> = {
  config: 0,
  util: 0,
  storage: 1,
  chain: 2,
  execution: 3,
  blockchain: 4,
  txpool: 5,
  flashblocks: 6,
  sync: 6,
  sequencer: 6,
  derivation: 6,
  batcher: 6,
  proofs: 6,
  p2p: 6,
  rpc: 7,
  rollup: 7,
  cli: 8,
  ops: 8,
  devnet: 8,
  workers: 8,
};

/** One relative import: the importing file and the file it names (both relative to the repository). */
interface Edge {
  file: string;
  target: string;
  from: string;
  to: string;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...tsFiles(p));
    else if (e.name.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** The layer folder of a repository path: `src/<folder>/…` or `workers/…`. */
function folderOf(rel: string): string {
  const parts = rel.split(path.sep);
  return parts[0] === "src" ? (parts.length > 2 ? parts[1]! : "src") : parts[0]!;
}

/** Every relative import (static, dynamic, `export … from`, type-only) between two folders. */
function crossFolderImports(): Edge[] {
  const files = [...tsFiles(path.join(REPO_ROOT, "src")), ...tsFiles(path.join(REPO_ROOT, "workers"))];
  const edges: Edge[] = [];
  for (const abs of files) {
    const file = path.relative(REPO_ROOT, abs);
    const info = ts.preProcessFile(readFileSync(abs, "utf8"), true, true);
    for (const ref of info.importedFiles) {
      if (!ref.fileName.startsWith(".")) continue;
      const target = path.relative(REPO_ROOT, path.resolve(path.dirname(abs), ref.fileName)).replace(/\.js$/, ".ts");
      const from = folderOf(file);
      const to = folderOf(target);
      if (from !== to) edges.push({ file, target, from, to });
    }
  }
  return edges;
}

/** Folder cycles: each strongly connected component of more than one folder (Tarjan). */
function folderCycles(edges: Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)!.add(e.to);
  }
  return stronglyConnected(next);
}

const edges = crossFolderImports();
const arrow = (e: Edge): string => `${e.file} → ${e.target}`;

describe("layers", () => {
  it("every folder has a layer", () => {
    const folders = new Set(edges.flatMap((e) => [e.from, e.to]));
    expect([...folders].filter((f) => LAYERS[f] === undefined).sort()).toEqual([]);
  });

  it("no folder imports from a higher layer", () => {
    const upward = edges.filter((e) => (LAYERS[e.to] ?? Infinity) > (LAYERS[e.from] ?? -Infinity)).map((e) => `${arrow(e)} (${e.from} ${LAYERS[e.from]} → ${e.to} ${LAYERS[e.to]})`);
    expect(upward).toEqual([]);
  });

  it("no import cycle between folders", () => {
    // Downward imports inside a cycle are fine by themselves: name the imports that close it.
    const cycles = folderCycles(edges).map((component) => {
      const closing = edges.filter((e) => component.includes(e.from) && component.includes(e.to) && LAYERS[e.to]! >= LAYERS[e.from]!);
      return `${component.join(" ↔ ")}: ${closing.map(arrow).join(", ")}`;
    });
    expect(cycles).toEqual([]);
  });
});

describe("file import cycles", () => {
  it("no import cycle between files of src/ and workers/ (type-only imports included)", () => {
    const cycles = fileCycles(readSources(REPO_ROOT, ["src", "workers"]), { typeOnly: true }).map((c) => c.join(" ↔ "));
    expect(cycles).toEqual([]);
  });

  it("the check finds a cycle, also one closed by a type-only import, and ignores a package import", () => {
    const files = [
      { path: "src/a/one.ts", text: 'import { two } from "./two.js";\nexport const one = two + 1;\n' },
      { path: "src/a/two.ts", text: 'import type { Three } from "../b/three.js";\nexport const two: Three = 2;\n' },
      { path: "src/b/three.ts", text: 'import type { one } from "../a/one.js";\nimport { x } from "some-package";\nexport type Three = typeof one;\n' },
      { path: "src/b/four.ts", text: 'export * from "./three.js";\n' },
    ];
    expect(fileCycles(files, { typeOnly: true })).toEqual([["src/a/one.ts", "src/a/two.ts", "src/b/three.ts"]]);
    // Without the type-only edges the chain is open.
    expect(fileCycles(files, { typeOnly: false })).toEqual([]);
    const dynamic = [
      { path: "src/c/x.ts", text: 'export async function x() { return (await import("./y.js")).y; }\n' },
      { path: "src/c/y.ts", text: 'export { x as y } from "./x.js";\n' },
    ];
    expect(fileCycles(dynamic, { typeOnly: false })).toEqual([["src/c/x.ts", "src/c/y.ts"]]);
  });
});
