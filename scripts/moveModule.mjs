#!/usr/bin/env node
/**
 * Moves one TypeScript module and rewrites every relative reference to it.
 *
 *   node scripts/moveModule.mjs src/sync/rpcClient.ts src/util/rpcClient.ts
 *
 * - `git mv <from> <to>` when <from> still exists (skipped when <to> already exists: re-runnable).
 * - The moved file's own relative specifiers are re-pointed from its new place.
 * - In every .ts/.mts/.mjs file under src/, workers/, test/, bench/, scripts/: each relative string
 *   literal that names <from> (`import … from`, `export … from`, `import()`, `import("…")` types,
 *   `vi.mock("…")`) is re-pointed to <to>, keeping its extension style (`.js`, `.ts`, none).
 *
 * Idempotent: a second run finds nothing naming <from> and changes nothing.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const SCAN = ["src", "workers", "test", "bench", "scripts"];
const EXT = /\.(ts|mts|mjs)$/;

/** Every source file under the scanned folders (node_modules, dist and fixtures skipped). */
function sourceFiles() {
  const out = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === "node_modules" || e.name === "dist" || e.name.startsWith(".")) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (EXT.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
    }
  };
  for (const d of SCAN) walk(path.join(ROOT, d));
  return out;
}

/** The absolute .ts path a relative specifier names from `fromFile`, or undefined. */
export function resolveSpecifier(fromFile, spec) {
  if (!spec.startsWith("./") && !spec.startsWith("../")) return undefined;
  const abs = path.resolve(path.dirname(fromFile), spec);
  if (abs.endsWith(".js")) return abs.slice(0, -3) + ".ts";
  if (abs.endsWith(".ts")) return abs;
  return abs + ".ts";
}

/** A relative specifier from `fromFile` to the .ts file `targetTs`, in the extension style of `like`. */
export function specifierFor(fromFile, targetTs, like = ".js") {
  let rel = path.relative(path.dirname(fromFile), targetTs).split(path.sep).join("/");
  if (!rel.startsWith(".")) rel = "./" + rel;
  const base = rel.replace(/\.ts$/, "");
  if (like.endsWith(".js")) return base + ".js";
  if (like.endsWith(".ts")) return base + ".ts";
  return base;
}

/** Rewrites in `text` (file `file`, now living at `asFile`) every relative literal for which `map(abs)` gives a new target. */
export function rewriteSpecifiers(text, file, asFile, map) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".ts") || file.endsWith(".mts") ? ts.ScriptKind.TS : ts.ScriptKind.JS);
  const edits = [];
  const visit = (node) => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && (node.text.startsWith("./") || node.text.startsWith("../"))) {
      const abs = resolveSpecifier(file, node.text);
      const target = abs && map(abs);
      if (target) {
        const spec = specifierFor(asFile, target, node.text);
        if (spec !== node.text) {
          const q = text[node.getStart(sf)];
          edits.push({ start: node.getStart(sf), end: node.end, text: q + spec + q });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return { text: out, count: edits.length };
}

function main() {
  const [fromArg, toArg] = process.argv.slice(2);
  if (!fromArg || !toArg) {
    console.error("usage: node scripts/moveModule.mjs <from.ts> <to.ts>");
    process.exit(2);
  }
  const from = path.resolve(ROOT, fromArg);
  const to = path.resolve(ROOT, toArg);
  if (existsSync(from) && existsSync(to)) {
    console.error(`both ${fromArg} and ${toArg} exist: refusing to move`);
    process.exit(1);
  }
  if (existsSync(from)) {
    execFileSync("git", ["mv", path.relative(ROOT, from), path.relative(ROOT, to)], { cwd: ROOT, stdio: "inherit" });
    // The moved file's own relative imports: resolve them from the old place, write them from the new.
    const text = readFileSync(to, "utf8");
    const r = rewriteSpecifiers(text, from, to, (abs) => (abs === from ? to : abs));
    if (r.count) writeFileSync(to, r.text);
    console.log(`moved ${fromArg} → ${toArg} (${r.count} own specifiers re-pointed)`);
  } else if (!existsSync(to)) {
    console.error(`neither ${fromArg} nor ${toArg} exists`);
    process.exit(1);
  }
  let files = 0;
  let refs = 0;
  for (const file of sourceFiles()) {
    const text = readFileSync(file, "utf8");
    const r = rewriteSpecifiers(text, file, file, (abs) => (abs === from ? to : undefined));
    if (r.count) {
      writeFileSync(file, r.text);
      files++;
      refs += r.count;
    }
  }
  console.log(`${refs} references in ${files} files re-pointed to ${path.relative(ROOT, to)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
