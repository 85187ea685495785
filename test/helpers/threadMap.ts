/**
 * Which thread loads which file of src/: the value-import closure (type-only imports run nowhere)
 * of each thread's entry point — `src/cli/main.ts` for the main (RPC) thread, `workers/<name>.ts`
 * for each worker (a worker is spawned by path, not imported, so the closures stay apart).
 * Rendered as the "Threads per subsystem" tables of docs/ARCHITECTURE.md and checked by
 * `test/unit/threadsDoc.test.ts`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** The threads, in table order: a one-letter key, the entry point, and the name used in the docs. */
export const THREADS = [
  { key: "M", entry: "src/cli/main.ts", name: "main (RPC) thread" },
  { key: "X", entry: "workers/execution.ts", name: "execution pool workers (piscina)" },
  { key: "F", entry: "workers/flashblocks.ts", name: "flashblocks worker" },
  { key: "R", entry: "workers/proofs.ts", name: "proofs worker" },
  { key: "D", entry: "workers/derivation.ts", name: "derivation worker" },
  { key: "P", entry: "workers/p2p.ts", name: "p2p worker (consensus layer, libp2p)" },
  { key: "E", entry: "workers/devp2p.ts", name: "devp2p worker (execution layer)" },
] as const;

/** Relative files a file imports for their values (static, `export … from`, dynamic `import()`). */
function valueImports(root: string, rel: string): string[] {
  const abs = path.join(root, rel);
  const sf = ts.createSourceFile(rel, readFileSync(abs, "utf8"), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const add = (spec: string): void => {
    if (!spec.startsWith(".")) return;
    const target = path.relative(root, path.resolve(path.dirname(abs), spec)).replace(/\.js$/, ".ts").split(path.sep).join("/");
    if (existsSync(path.join(root, target))) out.push(target);
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
      const c = n.importClause;
      const named = c?.namedBindings !== undefined && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      const typeOnly = c !== undefined && (c.isTypeOnly || (c.name === undefined && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)));
      if (!typeOnly) add(n.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier !== undefined && ts.isStringLiteral(n.moduleSpecifier)) {
      const named = n.exportClause !== undefined && ts.isNamedExports(n.exportClause) ? n.exportClause.elements : undefined;
      if (!(n.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly)))) add(n.moduleSpecifier.text);
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] !== undefined && ts.isStringLiteral(n.arguments[0])) {
      add(n.arguments[0].text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function closure(root: string, entry: string, memo: Map<string, string[]>): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    let next = memo.get(f);
    if (next === undefined) memo.set(f, (next = valueImports(root, f)));
    stack.push(...next);
  }
  return seen;
}

function srcFiles(root: string, dir = "src"): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return srcFiles(root, rel);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [rel] : [];
  });
}

/** For every `src/**\/*.ts`, the keys of the threads that load it ("" for none). */
export function threadMap(root: string): Map<string, string> {
  const memo = new Map<string, string[]>();
  const loaded = THREADS.map((t) => closure(root, t.entry, memo));
  const out = new Map<string, string>();
  for (const f of srcFiles(root).sort()) out.set(f, THREADS.filter((_, i) => loaded[i]!.has(f)).map((t) => t.key).join(""));
  return out;
}

/** The markdown of the per-subsystem tables (between the markers in docs/ARCHITECTURE.md). */
export function renderThreadTables(root: string, map: Map<string, string> = threadMap(root)): string {
  const folders = new Map<string, Map<string, string[]>>();
  for (const [file, keys] of map) {
    const [, folder, ...rest] = file.split("/");
    const groups = folders.get(folder!) ?? new Map<string, string[]>();
    folders.set(folder!, groups);
    const list = groups.get(keys) ?? [];
    groups.set(keys, list);
    list.push(rest.join("/"));
  }
  const label = (keys: string): string => (keys === "" ? "none (tests, bench, or types only)" : keys.split("").join(" "));
  const lines: string[] = [];
  for (const [folder, groups] of [...folders].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`**${folder}/**`, "", "| threads | files |", "|---|---|");
    // Single threads first, then shared files by how many threads load them, "none" last.
    const rank = (k: string): number[] => (k === "" ? [99] : [k.length, ...k.split("").map((c) => THREADS.findIndex((t) => t.key === c))]);
    const byRank = ([a]: [string, string[]], [b]: [string, string[]]): number => {
      const ra = rank(a);
      const rb = rank(b);
      for (let i = 0; i < Math.max(ra.length, rb.length); i++) if ((ra[i] ?? -1) !== (rb[i] ?? -1)) return (ra[i] ?? -1) - (rb[i] ?? -1);
      return 0;
    };
    for (const [keys, files] of [...groups].sort(byRank)) {
      lines.push(`| ${label(keys)} | ${files.sort().map((f) => `\`${f}\``).join(", ")} |`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

/** The markers around the generated tables. */
export const THREADS_BEGIN = "<!-- threads-per-subsystem: generated by test/unit/threadsDoc.test.ts (BASALT_UPDATE_DOCS=1 rewrites it) -->";
export const THREADS_END = "<!-- /threads-per-subsystem -->";
