#!/usr/bin/env node
/**
 * Places every constant of `src/config/constants.ts` beside the subsystem that uses it
 * (issue 27 item 4; reth keeps constants per crate), and rewrites every import to match.
 *
 *   node scripts/splitConstants.mjs            # rewrite the tree
 *   node scripts/splitConstants.mjs --dry-run  # print the plan, write nothing
 *
 * Rule: a constant lives in `src/<folder>/constants.ts` of the LOWEST layer that uses it, where
 * the layers are those of test/unit/layers.test.ts (read from it at run time). Users are the files
 * of src/ and workers/ that import it, and the constants derived from it (a derived constant's home
 * uses it). Files of test/ and bench/ may import anything and do not constrain. One using folder →
 * that folder; several → the single folder of the lowest layer among them when every other user
 * may import it (a strictly higher layer), else `src/config/constants.ts` (the lowest common
 * layer). Used by config/ or util/, by workers/ only, or by nothing → config. OVERRIDES below are
 * the judgement calls.
 *
 * Re-runnable and idempotent: it reads the current `config/constants.ts` and every existing
 * `src/<folder>/constants.ts`. Constants already split stay where they are (new ones are appended)
 * unless a user may no longer import them there, then they move down by the same rule. Every import
 * declaration of src/, workers/, test/, bench/ that names a constant from a constants file it no
 * longer lives in is rewritten: named imports split among the new modules with correct relative
 * paths, `import type` / `type X` / `X as Y` kept, merged into an existing import from the same
 * module. A second run on its own output changes nothing.
 *
 * Each constant keeps its JSDoc verbatim; `// ----` section headers travel with their constants
 * (a header is written once before each run of constants of its section in every file).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const SRC = path.join(ROOT, "src");
const CONFIG_FILE = path.join(SRC, "config", "constants.ts");
const SCAN = ["src", "workers", "test", "bench"];
const DRY = process.argv.includes("--dry-run");

/**
 * Judgement calls: constant name → folder (or "config"). Applied only when every user may import
 * that folder; otherwise a warning is printed and the rule decides.
 */
const OVERRIDES = {
  // The execution pool's heap limit: set by cli/commands/node.ts, a property of execution workers.
  EXECUTION_WORKER_HEAP_MB: "execution",
  // The proofs worker's backfill step, also shown by `basalt proofs`: a proofs value.
  PROOFS_BACKFILL_BLOCKS_PER_TURN: "proofs",
  // Unused in src/ (tests read them): beside the values they belong with.
  BLOB_FIELD_ELEMENTS: "chain",
  DEVNET_ROLLUP_SYSTEM_CONFIG_OWNER_ACCOUNT: "devnet",
};

/** The subsystem a thread entry of workers/ runs (workers/<name>.ts → src/<name>/ unless named here). */
const WORKER_SUBSYSTEM = { devp2p: "p2p" };

const CONFIG_DOC_OLD = "/**\n * Every default of basalt in one place";
const CONFIG_DOC = `/**
 * basalt's shared defaults and limits, each with the reason for its value: option defaults
 * (\`src/config/options.ts\` takes them from here), JSON-RPC limits, and values used by more than
 * one subsystem. A constant used by one subsystem only lives in that subsystem's \`constants.ts\`;
 * \`scripts/splitConstants.mjs\` places each in the lowest layer that uses it.
 */`;
const folderDoc = (folder) => `/**
 * Constants of \`src/${folder}/\`, each with the reason for its value (reth keeps constants per
 * crate). Values used by lower layers or as option defaults live in \`src/config/constants.ts\`;
 * \`scripts/splitConstants.mjs\` places each constant in the lowest layer that uses it.
 */`;

// ---- layers ------------------------------------------------------------------------------------

/** The LAYERS table of test/unit/layers.test.ts, so the script follows the gate it must pass. */
function readLayers() {
  const text = readFileSync(path.join(ROOT, "test/unit/layers.test.ts"), "utf8");
  const m = /const LAYERS[^=]*=\s*\{([\s\S]*?)\};/.exec(text);
  if (!m) throw new Error("test/unit/layers.test.ts: no LAYERS table found");
  const layers = {};
  for (const [, k, v] of m[1].matchAll(/(\w+)\s*:\s*(\d+)/g)) layers[k] = Number(v);
  return layers;
}
const LAYERS = readLayers();

/** `from` may import `to`: same folder, a lower layer, or util → config (the one-way pair of layer 0); workers/ is a folder of its own. */
function canImport(from, to) {
  if (from.startsWith("workers/")) from = "workers";
  if (from === to || to === "config") return true;
  return LAYERS[to] !== undefined && LAYERS[from] !== undefined && LAYERS[to] < LAYERS[from];
}

/** The layer folder of a file: src/<folder>/… → folder, workers/… → "workers", else null (test, bench: unconstrained). */
function folderOf(abs) {
  const parts = path.relative(ROOT, abs).split(path.sep);
  if (parts[0] === "src" && parts.length > 2) return parts[1];
  if (parts[0] === "workers") return `workers/${path.basename(abs, ".ts")}`;
  return null;
}

const constantsFileOf = (folder) => path.join(SRC, folder, "constants.ts");

// ---- files and specifiers ----------------------------------------------------------------------

function sourceFiles() {
  const out = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === "node_modules" || e.name === "dist" || e.name.startsWith(".")) continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push(p);
    }
  };
  for (const d of SCAN) walk(path.join(ROOT, d));
  return out.sort();
}

/** The absolute .ts file a relative specifier names, or undefined for a package. */
function resolveSpecifier(fromFile, spec) {
  if (!spec.startsWith("./") && !spec.startsWith("../")) return undefined;
  const abs = path.resolve(path.dirname(fromFile), spec);
  if (abs.endsWith(".js")) return abs.slice(0, -3) + ".ts";
  if (abs.endsWith(".ts")) return abs;
  return abs + ".ts";
}

/** The `.js` specifier from `fromFile` to the .ts file `target`. */
function specifierFor(fromFile, target) {
  let rel = path.relative(path.dirname(fromFile), target).split(path.sep).join("/");
  if (!rel.startsWith(".")) rel = "./" + rel;
  return rel.replace(/\.ts$/, ".js");
}

const parse = (file, text) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

// ---- constants files as models -----------------------------------------------------------------

const isRule = (c) => /^\/\/\s*(-{3,}|─{2,}|={3,}|#{3,})/.test(c);

/** Identifiers a statement refers to (property names and the declared names excluded). */
function referencedNames(stmt, declared) {
  const out = new Set();
  const visit = (n) => {
    if (ts.isIdentifier(n)) {
      const p = n.parent;
      const isPropName = (ts.isPropertyAssignment(p) && p.name === n) || (ts.isPropertyAccessExpression(p) && p.name === n) || (ts.isPropertySignature(p) && p.name === n) || (ts.isVariableDeclaration(p) && p.name === n && declared.has(n.text));
      if (!isPropName) out.add(n.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(stmt);
  return out;
}

/**
 * A constants file as: its file doc, its import declarations (with the names each binds), and its
 * entries — each top-level statement with its section header, its own comment and its references.
 */
function parseModel(file) {
  const exists = existsSync(file);
  const text = exists ? readFileSync(file, "utf8") : "";
  const sf = parse(file, text);
  const model = { file, folder: folderOf(file), exists, original: text, fileDoc: null, imports: [], entries: [], tail: "", dirty: false };
  let section = null;
  let prevEnd = 0;
  sf.statements.forEach((stmt, i) => {
    let comments = ts.getLeadingCommentRanges(text, stmt.pos) ?? [];
    const cText = (c) => text.slice(c.pos, c.end);
    if (i === 0 && comments.length && cText(comments[0]).startsWith("/**") && (ts.isImportDeclaration(stmt) || comments.length > 1 || /\n[ \t]*\n/.test(text.slice(comments[0].end, stmt.getStart(sf))))) {
      model.fileDoc = cText(comments[0]);
      prevEnd = comments[0].end;
      comments = comments.slice(1);
    }
    const trailing = ts.getTrailingCommentRanges(text, stmt.end) ?? [];
    const end = trailing.length ? trailing[trailing.length - 1].end : stmt.end;
    if (ts.isImportDeclaration(stmt)) {
      const start = comments.length ? comments[0].pos : stmt.getStart(sf);
      model.imports.push(importModel(file, stmt, sf, text.slice(start, end)));
      prevEnd = end;
      return;
    }
    let attachedIdx = comments.length;
    if (comments.length) {
      const last = cText(comments[comments.length - 1]);
      if (last.startsWith("/*")) attachedIdx = comments.length - 1;
      else {
        while (attachedIdx > 0 && !isRule(cText(comments[attachedIdx - 1])) && !cText(comments[attachedIdx - 1]).startsWith("/*")) {
          const gap = text.slice(comments[attachedIdx - 1].end, attachedIdx < comments.length ? comments[attachedIdx].pos : stmt.getStart(sf));
          if (/\n[ \t]*\n/.test(gap)) break;
          attachedIdx--;
        }
        // A run of `//` lines that begins a section (under a rule line) is the section's header.
        if (attachedIdx > 0 && isRule(cText(comments[attachedIdx - 1]))) attachedIdx = comments.length;
      }
    }
    if (attachedIdx > 0) section = text.slice(comments[0].pos, comments[attachedIdx - 1].end);
    const ownStart = attachedIdx < comments.length ? comments[attachedIdx].pos : stmt.getStart(sf);
    const gapStart = attachedIdx > 0 ? comments[attachedIdx - 1].end : prevEnd;
    const blankBefore = /\n[ \t]*\n/.test(text.slice(gapStart, ownStart));
    const exported = ts.isVariableStatement(stmt) && stmt.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    const names = ts.isVariableStatement(stmt) ? stmt.declarationList.declarations.filter((d) => ts.isIdentifier(d.name)).map((d) => d.name.text) : [];
    const declared = new Set(names);
    model.entries.push({
      kind: exported && names.length ? "const" : "other",
      names,
      section,
      blankBefore,
      attached: attachedIdx < comments.length ? text.slice(comments[attachedIdx].pos, comments[comments.length - 1].end) : "",
      text: text.slice(stmt.getStart(sf), end),
      refs: referencedNames(stmt, declared),
      from: file,
    });
    prevEnd = end;
  });
  const eofComments = ts.getLeadingCommentRanges(text, sf.endOfFileToken.pos) ?? [];
  model.origImports = model.imports.map((imp) => ({ ...imp, bindings: [...imp.bindings] }));
  if (eofComments.length) model.tail = text.slice(eofComments[0].pos, eofComments[eofComments.length - 1].end) + "\n";
  return model;
}

/** An import declaration: module (absolute .ts for relative ones), the local names it binds, and how. */
function importModel(file, decl, sf, text) {
  const spec = decl.moduleSpecifier.text;
  const clause = decl.importClause;
  const bindings = [];
  if (clause?.name) bindings.push({ local: clause.name.text, kind: "default", typeOnly: clause.isTypeOnly });
  if (clause?.namedBindings && ts.isNamespaceImport(clause.namedBindings)) bindings.push({ local: clause.namedBindings.name.text, kind: "namespace", typeOnly: clause.isTypeOnly });
  if (clause?.namedBindings && ts.isNamedImports(clause.namedBindings))
    for (const el of clause.namedBindings.elements)
      bindings.push({ local: el.name.text, imported: el.propertyName?.text ?? el.name.text, kind: "named", typeOnly: clause.isTypeOnly || el.isTypeOnly, specText: el.getText(sf) });
  return { module: resolveSpecifier(file, spec) ?? spec, bare: !spec.startsWith("."), typeOnly: !!clause?.isTypeOnly, sideEffect: !clause, bindings, text, changed: false };
}

/** Renders a model: file doc, imports (kept verbatim unless changed), entries with their section headers. */
function renderModel(m) {
  let out = "";
  if (m.fileDoc) out += m.fileDoc + "\n";
  for (const imp of m.imports) out += (imp.changed ? renderImport(m.file, imp) : imp.text) + "\n";
  let lastSection;
  m.entries.forEach((e, i) => {
    if (e.section && e.section !== lastSection) out += (out ? "\n" : "") + e.section + "\n" + (e.blankBefore ? "\n" : "");
    else if ((i === 0 && out) || e.blankBefore) out += "\n";
    lastSection = e.section;
    if (e.attached) out += e.attached + "\n";
    out += e.text + "\n";
  });
  if (m.tail) out += "\n" + m.tail;
  return out;
}

function renderImport(file, imp) {
  const spec = imp.bare ? imp.module : specifierFor(file, imp.module);
  if (imp.sideEffect) return `import "${spec}";`;
  const def = imp.bindings.find((b) => b.kind === "default");
  const ns = imp.bindings.find((b) => b.kind === "namespace");
  const named = imp.bindings.filter((b) => b.kind === "named");
  const parts = [];
  if (def) parts.push(def.local);
  if (ns) parts.push(`* as ${ns.local}`);
  if (named.length) parts.push(`{ ${named.map((b) => namedText(b, imp.typeOnly)).join(", ")} }`);
  return `import ${imp.typeOnly ? "type " : ""}${parts.join(", ")} from "${spec}";`;
}

function namedText(b, declTypeOnly) {
  const core = b.imported !== b.local ? `${b.imported} as ${b.local}` : b.local;
  return `${b.typeOnly && !declTypeOnly ? "type " : ""}${core}`;
}

// ---- plan --------------------------------------------------------------------------------------

const warnings = [];
const warn = (s) => warnings.push(s);

const models = new Map(); // file → model
models.set(CONFIG_FILE, parseModel(CONFIG_FILE));
for (const e of readdirSync(SRC, { withFileTypes: true })) {
  const f = constantsFileOf(e.name);
  if (e.isDirectory() && e.name !== "config" && existsSync(f)) models.set(f, parseModel(f));
}

/** name → { entry, file } for every exported constant of every constants file. */
const where = new Map();
for (const [file, m] of models)
  for (const e of m.entries)
    if (e.kind === "const")
      for (const n of e.names) {
        if (where.has(n)) warn(`${n} is declared in both ${path.relative(ROOT, where.get(n).file)} and ${path.relative(ROOT, file)}: the second is left alone`);
        else where.set(n, { entry: e, file });
      }

/** Importers: every non-constants file's import/export declarations that name a constants file. */
const importers = [];
const importUsers = new Map(); // name → Set(folder|null)
for (const file of sourceFiles()) {
  if (models.has(file)) continue;
  const text = readFileSync(file, "utf8");
  if (!text.includes("constants")) continue;
  const sf = parse(file, text);
  const decls = [];
  for (const st of sf.statements) {
    if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const target = resolveSpecifier(file, st.moduleSpecifier.text);
    decls.push({ st, target });
    if (!target || !models.has(target)) continue;
    const named = ts.isImportDeclaration(st) ? st.importClause?.namedBindings : st.exportClause;
    if (!named || !(ts.isNamedImports(named) || ts.isNamedExports(named))) {
      warn(`${path.relative(ROOT, file)}: a namespace or star import of ${path.relative(ROOT, target)}: its constants are pinned where they are`);
      for (const [n, w] of where) if (w.file === target) w.pinned = true;
      continue;
    }
    for (const el of named.elements) {
      const n = el.propertyName?.text ?? el.name.text;
      if (!importUsers.has(n)) importUsers.set(n, new Set());
      importUsers.get(n).add(folderOf(file));
    }
  }
  importers.push({ file, text, sf, decls });
}

/** Home folder of each constant: start where it is, iterate the rule to a fixed point. */
const home = new Map();
for (const [n, w] of where) home.set(n, models.get(w.file).folder);

function usersOf(n) {
  const users = new Set([...(importUsers.get(n) ?? [])].filter((f) => f !== null));
  for (const [file, m] of models)
    for (const e of m.entries) {
      if (!e.refs.has(n) || e.names.includes(n)) continue;
      users.add(e.kind === "const" && home.has(e.names[0]) ? home.get(e.names[0]) : m.folder);
    }
  return users;
}

function ruleHome(users) {
  const cands = [...users].filter((f) => !f.startsWith("workers"));
  if (!cands.length) {
    // Used by thread entries only: beside the subsystem the thread runs, when that is one.
    const subs = new Set([...users].map((f) => f.slice("workers/".length)).map((b) => WORKER_SUBSYSTEM[b] ?? b));
    const only = [...subs][0];
    return subs.size === 1 && LAYERS[only] !== undefined && only !== "workers" ? only : "config";
  }
  if (users.has("config") || users.has("util")) return "config";
  const minL = Math.min(...cands.map((f) => LAYERS[f] ?? Infinity));
  const low = [...new Set(cands.filter((f) => (LAYERS[f] ?? Infinity) === minL))];
  if (low.length === 1 && LAYERS[low[0]] !== undefined && [...users].every((u) => canImport(u, low[0]))) return low[0];
  return "config";
}

for (let round = 0; ; round++) {
  if (round > 50) throw new Error("homes do not settle after 50 rounds");
  let changed = false;
  for (const [n, w] of where) {
    if (w.pinned) continue;
    const m = models.get(w.file);
    const users = usersOf(n);
    const current = home.get(n);
    let next;
    if (m.folder === "config") {
      next = ruleHome(users);
      const o = OVERRIDES[n];
      if (o !== undefined) {
        if ([...users].every((u) => canImport(u, o))) next = o;
        else if (round === 0) warn(`override ${n} → ${o} ignored: used by ${[...users].join(", ")}`);
      }
    } else {
      // Already split: stays unless a user may not import it there.
      next = [...users].every((u) => canImport(u, m.folder)) ? m.folder : ruleHome(users);
    }
    // Entries that are not constants (helpers, types) pin what they reference to their file.
    if (next !== current) {
      home.set(n, next);
      changed = true;
    }
  }
  if (!changed) break;
}
// A statement declaring several names moves as one: all to the lowest-layer home among them (config wins).
for (const [, w] of where) {
  const hs = [...new Set(w.entry.names.map((x) => home.get(x)))];
  if (hs.length > 1) for (const x of w.entry.names) home.set(x, "config");
}

// ---- apply: move entries between models ---------------------------------------------------------

const moved = new Map(); // name → { from, to }
for (const [file, m] of [...models]) {
  const keep = [];
  for (const e of m.entries) {
    const h = e.kind === "const" && where.get(e.names[0])?.entry === e ? home.get(e.names[0]) : m.folder;
    if (h === m.folder) {
      keep.push(e);
      continue;
    }
    const dest = constantsFileOf(h);
    if (!models.has(dest)) models.set(dest, { ...parseModel(dest), fileDoc: folderDoc(h) });
    const dm = models.get(dest);
    dm.incoming ??= [];
    dm.incoming.push(e);
    dm.dirty = true;
    m.dirty = true;
    for (const n of e.names) moved.set(n, { from: file, to: dest });
  }
  m.entries = keep;
}
for (const m of models.values()) {
  if (!m.incoming) continue;
  // Appended in the order of config/constants.ts (their source order), after what the file holds.
  m.entries.push(...m.incoming);
  delete m.incoming;
}
const cfg = models.get(CONFIG_FILE);
if (cfg.fileDoc?.startsWith(CONFIG_DOC_OLD)) {
  cfg.fileDoc = CONFIG_DOC;
  cfg.dirty = true;
}

/** The .ts file each constant name now lives in. */
const fileOfName = new Map();
for (const [file, m] of models) for (const e of m.entries) if (e.kind === "const") for (const n of e.names) if (!fileOfName.has(n) || where.get(n)?.entry === e) fileOfName.set(n, file);

/** Recomputes a changed model's imports: keep what its entries use, add what moved entries need. */
function fixImports(m) {
  const localDecl = new Set(m.entries.flatMap((e) => e.names));
  const used = new Set(m.entries.flatMap((e) => [...e.refs]));
  // Needed bindings: from moved entries' original imports, and from constants living elsewhere.
  const needed = new Map(); // local → binding + module
  for (const e of m.entries) {
    const src = models.get(e.from);
    for (const r of e.refs) {
      if (localDecl.has(r)) continue;
      const f = fileOfName.get(r);
      if (f && f !== m.file) {
        needed.set(r, { local: r, imported: r, kind: "named", typeOnly: false, module: f, bare: false });
        continue;
      }
      if (f === m.file) continue;
      const srcImp = src?.origImports.find((imp) => imp.bindings.some((b) => b.local === r));
      if (srcImp) {
        const b = srcImp.bindings.find((x) => x.local === r);
        needed.set(r, { ...b, typeOnly: b.typeOnly || srcImp.typeOnly, module: srcImp.module, bare: srcImp.bare });
      }
    }
  }
  const imports = [];
  for (const imp of m.imports) {
    if (imp.sideEffect) {
      imports.push(imp);
      continue;
    }
    const keep = imp.bindings.filter((b) => used.has(b.local) && !(needed.get(b.local) && needed.get(b.local).module !== imp.module));
    for (const b of keep) needed.delete(b.local);
    if (keep.length !== imp.bindings.length) imp.changed = true;
    imp.bindings = keep;
    if (keep.length) imports.push(imp);
  }
  for (const b of needed.values()) {
    let imp = b.kind === "named" && imports.find((i) => i.module === b.module && !i.sideEffect && i.typeOnly === b.typeOnly && i.bindings.every((x) => x.kind === "named"));
    if (!imp) {
      imp = { module: b.module, bare: b.bare, typeOnly: b.kind === "named" ? b.typeOnly : b.typeOnly, sideEffect: false, bindings: [], text: "", changed: true };
      imports.push(imp);
    }
    imp.bindings.push({ local: b.local, imported: b.imported, kind: b.kind, typeOnly: b.typeOnly });
    imp.changed = true;
  }
  m.imports = imports;
}

for (const m of models.values()) if (m.dirty) fixImports(m);

// ---- apply: rewrite importers ---------------------------------------------------------------------

function declText(kind, typeOnly, specs, spec, defaultName) {
  const parts = [];
  if (defaultName) parts.push(defaultName);
  if (specs.length) parts.push(`{ ${specs.join(", ")} }`);
  return `${kind} ${typeOnly ? "type " : ""}${parts.join(", ")} from "${spec}";`;
}

/** A declaration named specifiers can be merged into: same kind, same type-only-ness, named bindings only. */
function mergeable(st, isImport, typeOnly) {
  if (isImport)
    return ts.isImportDeclaration(st) && !!st.importClause && !st.importClause.name && !!st.importClause.namedBindings && ts.isNamedImports(st.importClause.namedBindings) && !!st.importClause.isTypeOnly === typeOnly;
  return ts.isExportDeclaration(st) && !!st.exportClause && ts.isNamedExports(st.exportClause) && !!st.isTypeOnly === typeOnly;
}

let rewrittenFiles = 0;
const writes = new Map(); // file → text
for (const { file, text, sf, decls } of importers) {
  // Each declaration's final specifiers; declarations this run adds, placed after the one they came from.
  const finalSpecs = new Map(); // decl → { specs, changed }
  const slot = (st) => {
    if (!finalSpecs.has(st)) {
      const named = ts.isImportDeclaration(st) ? st.importClause?.namedBindings : st.exportClause;
      finalSpecs.set(st, { specs: named && (ts.isNamedImports(named) || ts.isNamedExports(named)) ? named.elements.map((el) => el.getText(sf)) : [], changed: false });
    }
    return finalSpecs.get(st);
  };
  const created = new Map(); // "kind|typeOnly|file" → { kind, typeOnly, specs, spec, after }
  for (const { st, target } of decls) {
    if (!target || !models.has(target)) continue;
    const isImport = ts.isImportDeclaration(st);
    const named = isImport ? st.importClause?.namedBindings : st.exportClause;
    if (!named || !(ts.isNamedImports(named) || ts.isNamedExports(named))) continue;
    const typeOnly = isImport ? !!st.importClause.isTypeOnly : !!st.isTypeOnly;
    const kind = isImport ? "import" : "export";
    for (const el of named.elements) {
      const n = el.propertyName?.text ?? el.name.text;
      const f = fileOfName.get(n);
      if (!f || f === target) continue;
      const specText = el.getText(sf);
      const own = slot(st);
      own.specs = own.specs.filter((s) => s !== specText);
      own.changed = true;
      const existing = decls.find((d) => d.target === f && mergeable(d.st, isImport, typeOnly));
      if (existing) {
        const t = slot(existing.st);
        if (!t.specs.includes(specText)) t.specs.push(specText);
        t.changed = true;
        continue;
      }
      const key = `${kind}|${typeOnly}|${f}`;
      if (!created.has(key)) created.set(key, { kind, typeOnly, specs: [], spec: specifierFor(file, f), after: st });
      const c = created.get(key);
      if (!c.specs.includes(specText)) c.specs.push(specText);
    }
  }
  const changedDecls = [...finalSpecs].filter(([, v]) => v.changed);
  if (!changedDecls.length && !created.size) continue;
  const edits = [];
  const touched = new Set([...changedDecls.map(([st]) => st), ...[...created.values()].map((c) => c.after)]);
  for (const st of touched) {
    const isImport = ts.isImportDeclaration(st);
    const kind = isImport ? "import" : "export";
    const typeOnly = isImport ? !!st.importClause?.isTypeOnly : !!st.isTypeOnly;
    const def = isImport ? st.importClause?.name?.text : undefined;
    const fs = finalSpecs.get(st);
    let own = st.getText(sf);
    if (fs?.changed) own = fs.specs.length || def ? declText(kind, typeOnly, fs.specs, st.moduleSpecifier.text, def) : "";
    const after = [...created.values()].filter((c) => c.after === st).map((c) => declText(c.kind, c.typeOnly, c.specs, c.spec));
    const t = [own, ...after].filter(Boolean).join("\n");
    let start = st.getStart(sf);
    let end = st.end;
    if (!t) {
      // Nothing left: remove the whole line.
      const lineStart = text.lastIndexOf("\n", start - 1) + 1;
      if (text.slice(lineStart, start).trim() === "") start = lineStart;
      if (text[end] === "\n") end++;
    }
    edits.push({ start, end, text: t });
  }
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  writes.set(file, out);
  rewrittenFiles++;
}

for (const m of models.values()) {
  if (!m.dirty) continue;
  const out = renderModel(m);
  if (out !== m.original) writes.set(m.file, out);
}

// ---- report ------------------------------------------------------------------------------------

const perDest = new Map();
for (const [n, { from, to }] of moved) {
  const k = `${path.relative(ROOT, from)} → ${path.relative(ROOT, to)}`;
  perDest.set(k, (perDest.get(k) ?? 0) + 1);
}
for (const [k, c] of [...perDest].sort()) console.log(`${String(c).padStart(4)}  ${k}`);
const remaining = models.get(CONFIG_FILE).entries.filter((e) => e.kind === "const").length;
console.log(`${moved.size} constants moved; ${remaining} left in src/config/constants.ts; ${rewrittenFiles} importing files rewritten${DRY ? " (dry run: nothing written)" : ""}`);
if (process.argv.includes("--plan"))
  for (const [n, w] of where) console.log(`${n}\t${models.get(w.file).folder}→${home.get(n)}\t${[...usersOf(n)].sort().join(",")}`);
for (const w of warnings) console.warn(`warning: ${w}`);
if (!DRY) for (const [file, text] of writes) writeFileSync(file, text);
