/**
 * Checkers behind the source-code gates of `npm test` (issue 27): file-level import cycles,
 * exported names nothing imports, and control flow on an error's message text. Each works on
 * plain `{ path, text }` records so its test can also run it on a small synthetic input and show
 * that the gate fails when the rule is broken. Syntax only (one `ts.createSourceFile` per file,
 * no type checking): fast enough to run over the whole repository in every `npm test`.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** One source file: its repository-relative path (with `/`) and its text. */
export interface SourceText {
  path: string;
  text: string;
}

/** Every `.ts` file under `dirs` (relative to `root`), sorted, as {@link SourceText}. */
export function readSources(root: string, dirs: readonly string[]): SourceText[] {
  const out: SourceText[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts")) out.push({ path: p, text: readFileSync(path.join(root, p), "utf8") });
    }
  };
  for (const d of dirs) walk(d);
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/**
 * One import of a file by another: the names it takes (`"*"`: all of them — a namespace import,
 * `export *`, a dynamic `import()`), whether it is type-only, and whether it re-exports them.
 */
export interface ImportRef {
  from: string;
  target: string;
  names: readonly string[] | "*";
  typeOnly: boolean;
  /** `export … from`: the importing file passes the names on. */
  reexport: boolean;
}

/** The repository path a relative specifier of `from` names (`./x.js` → `dir/x.ts`), or undefined for a package. */
function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return joined.replace(/\.js$/, ".ts");
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === kind) ?? false);
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** What one file exports by itself and re-exports wholesale (`export * from`). */
interface ModuleShape {
  exports: Map<string, number>;
  stars: string[];
}

interface Parsed {
  imports: ImportRef[];
  shape: ModuleShape;
  /** How often each identifier occurs in the file's code (comments and `export { … }` lists left out). */
  mentions: Map<string, number>;
}

/** Imports and exports of one file (relative specifiers only; packages are not this repository's files). */
function parse(file: SourceText): Parsed {
  const sf = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const imports: ImportRef[] = [];
  const exports = new Map<string, number>();
  const stars: string[] = [];
  const line = (n: ts.Node): number => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
  const add = (target: string | undefined, names: readonly string[] | "*", typeOnly: boolean, reexport = false): void => {
    if (target !== undefined) imports.push({ from: file.path, target, names, typeOnly, reexport });
  };
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const target = resolve(file.path, st.moduleSpecifier.text);
      const clause = st.importClause;
      if (clause === undefined) {
        add(target, [], false); // side-effect import: a runtime edge, no names
        continue;
      }
      const names: string[] = [];
      let allTypes = clause.isTypeOnly;
      let namespace = false;
      if (clause.name !== undefined) names.push("default");
      if (clause.namedBindings !== undefined) {
        if (ts.isNamespaceImport(clause.namedBindings)) namespace = true;
        else {
          const els = clause.namedBindings.elements;
          for (const el of els) names.push((el.propertyName ?? el.name).text);
          if (clause.name === undefined && els.length > 0 && els.every((el) => el.isTypeOnly)) allTypes = true;
        }
      }
      add(target, namespace ? "*" : names, allTypes);
    } else if (ts.isExportDeclaration(st)) {
      const target = st.moduleSpecifier !== undefined && ts.isStringLiteral(st.moduleSpecifier) ? resolve(file.path, st.moduleSpecifier.text) : undefined;
      if (st.exportClause === undefined) {
        // `export *`: an edge, and the names are passed on when asked for (see deadExports).
        if (target !== undefined) stars.push(target);
        add(target, [], st.isTypeOnly, true);
      } else if (ts.isNamespaceExport(st.exportClause)) {
        exports.set(st.exportClause.name.text, line(st));
        add(target, "*", st.isTypeOnly, true);
      } else {
        const els = st.exportClause.elements;
        for (const el of els) exports.set(el.name.text, line(el));
        if (st.moduleSpecifier !== undefined) add(target, els.map((el) => (el.propertyName ?? el.name).text), st.isTypeOnly || els.every((el) => el.isTypeOnly), true);
      }
    } else if (ts.isExportAssignment(st)) {
      exports.set("default", line(st));
    } else if (hasModifier(st, ts.SyntaxKind.ExportKeyword)) {
      if (hasModifier(st, ts.SyntaxKind.DefaultKeyword)) exports.set("default", line(st));
      else if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) for (const n of bindingNames(d.name)) exports.set(n, line(d));
      } else {
        const name = (st as ts.DeclarationStatement).name;
        if (name !== undefined && (ts.isIdentifier(name) || ts.isStringLiteral(name))) exports.set(name.text, line(st));
      }
    }
  }
  // Dynamic `import("./x.js")` (a runtime edge, all names) and type queries `import("./x.js").T`.
  const mentions = new Map<string, number>();
  const visit = (n: ts.Node): void => {
    if (ts.isExportSpecifier(n)) return;
    if (ts.isIdentifier(n)) mentions.set(n.text, (mentions.get(n.text) ?? 0) + 1);
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments.length > 0 && ts.isStringLiteralLike(n.arguments[0]!)) {
      add(resolve(file.path, n.arguments[0].text), "*", false);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) {
      let q = n.qualifier;
      while (q !== undefined && ts.isQualifiedName(q)) q = q.left;
      add(resolve(file.path, n.argument.literal.text), q === undefined || n.isTypeOf ? "*" : [q.text], true);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return { imports, shape: { exports, stars }, mentions };
}

/**
 * File-level import cycles among `files`: each strongly connected component of more than one file
 * in the graph of their relative imports (static, dynamic, `export … from`), sorted. With
 * `typeOnly: false`, imports that are type-only (`import type`, all-`type` specifiers, `import("…").T`)
 * are left out: they are erased at compile time and cannot order module evaluation.
 */
export function fileCycles(files: readonly SourceText[], opts: { typeOnly: boolean }): string[][] {
  const known = new Set(files.map((f) => f.path));
  const next = new Map<string, Set<string>>();
  for (const f of files) {
    const out = new Set<string>();
    for (const ref of parse(f).imports) if (known.has(ref.target) && ref.target !== f.path && (opts.typeOnly || !ref.typeOnly)) out.add(ref.target);
    next.set(f.path, out);
  }
  return stronglyConnected(next);
}

/** An exported name no other file imports. */
export interface DeadExport {
  /** `path:line name`. */
  at: string;
  /** The file itself uses the name (beside declaring it): it needs no `export`, but the code is alive. */
  usedInFile: boolean;
}

/**
 * Exported names of the `checked` files that no other file of `checked` or `users` imports, sorted
 * by place. A name taken through `export * from` counts for the file that declares it; a namespace
 * import or a dynamic `import()` counts for every name of its target. `entryPoints`: files whose
 * exports are called by name from outside the import graph (a worker's task functions), all
 * counted as used.
 */
export function deadExports(checked: readonly SourceText[], users: readonly SourceText[], entryPoints: ReadonlySet<string> = new Set()): DeadExport[] {
  const parsed = new Map<string, Parsed>();
  for (const f of [...checked, ...users]) if (!parsed.has(f.path)) parsed.set(f.path, parse(f));
  const used = new Map<string, Set<string> | "*">();
  const mark = (target: string, names: readonly string[] | "*", seen = new Set<string>()): void => {
    if (seen.has(target)) return;
    seen.add(target);
    const current = used.get(target);
    if (current === "*") return;
    if (names === "*") used.set(target, "*");
    else {
      const set = current ?? new Set<string>();
      for (const n of names) set.add(n);
      used.set(target, set);
    }
    // Names this file does not declare itself come from its `export *` targets.
    const shape = parsed.get(target)?.shape;
    if (shape === undefined || shape.stars.length === 0) return;
    const passed = names === "*" ? "*" : names.filter((n) => !shape.exports.has(n));
    if (passed === "*" || passed.length > 0) for (const s of shape.stars) mark(s, passed, seen);
  };
  for (const { imports } of parsed.values()) for (const ref of imports) if (ref.names === "*" || ref.names.length > 0) mark(ref.target, ref.names);
  const out: DeadExport[] = [];
  for (const f of checked) {
    if (entryPoints.has(f.path)) continue;
    const u = used.get(f.path);
    if (u === "*") continue;
    const { shape, mentions } = parsed.get(f.path)!;
    for (const [name, line] of shape.exports) {
      if (u !== undefined && u.has(name)) continue;
      out.push({ at: `${f.path}:${line} ${name}`, usedInFile: name !== "default" && (mentions.get(name) ?? 0) > 1 });
    }
  }
  return out.sort((a, b) => a.at.localeCompare(b.at, "en", { numeric: true }));
}

/** One place that branches on an error's message text: `path:line` and the line's code. */
export interface MessageSite {
  at: string;
  code: string;
}

/** Methods that decide something from a string (a regex test, a substring search, a comparison). */
const STRING_TESTS = "includes|startsWith|endsWith|match|matchAll|search|indexOf|lastIndexOf|localeCompare";

/**
 * Lines of `files` that branch on an error's message text: a regex run on `….message` (`/x/.test(e.message)`,
 * `RE.exec(e.message)`), a string test on it (`e.message.includes(…)`, `.startsWith`, `.match`…),
 * an (in)equality or `switch` on it; also the same on a local that holds a message
 * (`const m = e instanceof Error ? e.message : String(e)`, `const msg = (e as Error).message`) or
 * on a parameter named `message`/`msg`. An (in)equality counts against a string literal (comparing
 * two messages, as a log de-duplication does, decides nothing from the text); `meta.message` (a
 * typed field) is not message text. Comments are skipped.
 */
export function messageControlFlow(files: readonly SourceText[]): MessageSite[] {
  const literal = "(?:\"[^\"]*\"|'[^']*'|`[^`]*`)";
  const patternsFor = (names: readonly string[]): RegExp[] => {
    const subject = `(?:[\\w$)\\]]\\s*(?<!meta)\\.message\\b|(?<![.\\w$])(?:${names.join("|")})\\b(?!\\s*:))`;
    return [
      new RegExp(`\\.(?:test|exec|match|search)\\(\\s*[^)]*?${subject}`),
      new RegExp(`${subject}\\s*(?:\\)\\s*)?(?:\\.\\s*(?:toLowerCase|toUpperCase|trim)\\(\\)\\s*)?\\.\\s*(?:${STRING_TESTS})\\(`),
      new RegExp(`${subject}\\s*[!=]==?\\s*${literal}`),
      new RegExp(`${literal}\\s*[!=]==?\\s*${subject}`),
      new RegExp(`switch\\s*\\(\\s*${subject}`),
    ];
  };
  const sites: MessageSite[] = [];
  for (const f of files) {
    const code = codeLines(f.text);
    // A local that holds a message (`const m = … .message …;`) counts for the lines after it in
    // its function (ALIAS_SPAN lines: a syntax-only scan does not know scopes).
    const aliasUntil = new Map<string, number>();
    code.forEach((l, i) => {
      const m = /\b(?:const|let|var)\s+(\w+)\s*=\s*[^;]*(?<!meta)\.message\b/.exec(l);
      if (m !== null) aliasUntil.set(m[1]!, i + ALIAS_SPAN);
    });
    code.forEach((l, i) => {
      const names = ["message", ...[...aliasUntil].filter(([, until]) => i <= until).map(([n]) => n)];
      if (patternsFor(names).some((p) => p.test(l))) sites.push({ at: `${f.path}:${i + 1}`, code: f.text.split("\n")[i]!.trim() });
    });
  }
  return sites;
}

/** How many lines after its declaration a local holding a message is followed. */
const ALIAS_SPAN = 20;

/** The lines of `text` with comments blanked and `typeof …` operands (a type test, not the text) cut. */
function codeLines(text: string): string[] {
  let inBlock = false;
  return text.split("\n").map((raw) => {
    let l = raw;
    if (inBlock) {
      const end = l.indexOf("*/");
      if (end < 0) return "";
      l = l.slice(end + 2);
      inBlock = false;
    }
    l = l.replace(/\/\*.*?\*\//g, "");
    const open = l.indexOf("/*");
    if (open >= 0) {
      inBlock = true;
      l = l.slice(0, open);
    }
    l = l.replace(/(^|[^:"'`\\])\/\/.*$/, "$1");
    if (/^\s*\*/.test(l)) return "";
    return l.replace(/typeof\s+(?:\([^)]*\))?[\w$.]*/g, "typeof_");
  });
}

/** The strongly connected components of more than one node of a directed graph (Tarjan), each sorted, in order of their first node. */
export function stronglyConnected(next: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
