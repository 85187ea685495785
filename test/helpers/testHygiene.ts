/**
 * The scanner behind `test/unit/testHygieneGate.test.ts`: tests poll for the condition they wait
 * for through `test/helpers/poll.ts`, and never sleep a fixed time.
 *
 * It parses each file with the TypeScript compiler (code only: text in strings and comments is not
 * code) and reports:
 * - `fixed-sleep` (anywhere but `test/helpers/poll.ts`): a timer that resolves a wait —
 *   `setTimeout(resolve, ms)` / `setTimeout(() => resolve(), ms)` (a resolver passed as the
 *   callback), a call to or definition of `sleep`/`delay`, or an import of `timers/promises`.
 *   A timer that rejects, aborts, kills or schedules an action is a bound, not a sleep. A wait
 *   whose length is the behaviour under test goes through `settle(ms, why)` of poll.ts.
 * - `private-poll` (anywhere but `test/helpers/`): a function of its own named like poll.ts's
 *   helpers (`until`, `poll`, `pollUntil`, `waitUntil`, `waitFor`, `settle`), or a loop that
 *   checks a `Date.now()` deadline (compares with it, or subtracts it from one).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** What the scanner found wrong. */
export type HygieneRule = "fixed-sleep" | "private-poll";

/** One finding: where, which rule, and the code. */
export interface HygieneFinding {
  /** Path as given to {@link scanTestSource} (relative to the repository root when scanned by {@link scanTestTree}). */
  file: string;
  /** 1-based line. */
  line: number;
  rule: HygieneRule;
  /** The offending code, trimmed to one line. */
  text: string;
}

/** The one file allowed to wait on a timer. */
export const POLL_HELPER = "test/helpers/poll.ts";
/** The folder allowed to define polling loops of its own (shared helpers). */
export const HELPERS_DIR = "test/helpers/";

const HELPER_NAMES = new Set(["until", "poll", "pollUntil", "waitUntil", "waitFor", "settle", "sleep", "delay"]);
const SLEEP_NAMES = new Set(["sleep", "delay"]);
const MAY_MATCH = /setTimeout|timers\/promises|Date\.now|\b(until|poll|pollUntil|waitUntil|waitFor|settle|sleep|delay)\b/;
const RELATIONAL = new Set([ts.SyntaxKind.LessThanToken, ts.SyntaxKind.LessThanEqualsToken, ts.SyntaxKind.GreaterThanToken, ts.SyntaxKind.GreaterThanEqualsToken]);

function isDateNow(n: ts.Node): boolean {
  return (
    ts.isCallExpression(n) &&
    ts.isPropertyAccessExpression(n.expression) &&
    ts.isIdentifier(n.expression.expression) &&
    n.expression.expression.text === "Date" &&
    n.expression.name.text === "now"
  );
}

/** Whether `n` (not descending into nested functions) compares with `Date.now()` or subtracts it. */
function checksDeadline(n: ts.Node): boolean {
  let found = false;
  const visit = (c: ts.Node): void => {
    if (found || ts.isFunctionLike(c)) return;
    if (ts.isBinaryExpression(c)) {
      const op = c.operatorToken.kind;
      if (RELATIONAL.has(op) && (isDateNow(c.left) || isDateNow(c.right))) found = true;
      if (op === ts.SyntaxKind.MinusToken && isDateNow(c.right)) found = true;
    }
    ts.forEachChild(c, visit);
  };
  ts.forEachChild(n, visit);
  return found;
}

/** Whether a `setTimeout` call's callback settles a promise: a bare identifier, or an arrow calling one with no arguments. */
function resolvesAWait(call: ts.CallExpression): boolean {
  const cb = call.arguments[0];
  if (cb === undefined) return false;
  if (ts.isIdentifier(cb)) return true;
  if (ts.isArrowFunction(cb) && ts.isCallExpression(cb.body) && ts.isIdentifier(cb.body.expression) && cb.body.arguments.length === 0) return true;
  return false;
}

function functionName(n: ts.Node): string | undefined {
  if (ts.isFunctionDeclaration(n)) return n.name?.text;
  if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer !== undefined && (ts.isArrowFunction(n.initializer) || ts.isFunctionExpression(n.initializer))) return n.name.text;
  return undefined;
}

/** Scans one file's source; `file` is its repository-relative path (it decides which rules apply). */
export function scanTestSource(file: string, source: string): HygieneFinding[] {
  // Every rule needs one of these words in the text: a file without them is clean (and not parsed).
  if (!MAY_MATCH.test(source)) return [];
  const posix = file.split(path.sep).join("/");
  const sleepsAllowed = posix === POLL_HELPER;
  const loopsAllowed = posix.startsWith(HELPERS_DIR);
  const sf = ts.createSourceFile(posix, source, ts.ScriptTarget.Latest, true, posix.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: HygieneFinding[] = [];
  const report = (n: ts.Node, rule: HygieneRule): void => {
    const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
    out.push({ file: posix, line, rule, text: n.getText(sf).split("\n")[0]!.trim().slice(0, 160) });
  };
  const visit = (n: ts.Node): void => {
    if (!sleepsAllowed) {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
        const callee = n.expression.text;
        if (callee === "setTimeout" && resolvesAWait(n)) report(n, "fixed-sleep");
        if (SLEEP_NAMES.has(callee)) report(n, "fixed-sleep");
      }
      if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier) && /^(node:)?timers\/promises$/.test(n.moduleSpecifier.text)) report(n, "fixed-sleep");
    }
    if (!loopsAllowed) {
      const name = functionName(n);
      if (name !== undefined && HELPER_NAMES.has(name)) report(n, "private-poll");
      if ((ts.isForStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n) || ts.isForOfStatement(n)) && checksDeadline(n)) report(n, "private-poll");
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

function listSources(dir: string): string[] {
  const files: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== "node_modules") files.push(...listSources(p));
    } else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(e.name) && !e.name.endsWith(".d.ts")) {
      files.push(p);
    }
  }
  return files;
}

/** Scans every source file under `<root>/test` (paths reported relative to `root`). */
export function scanTestTree(root: string): HygieneFinding[] {
  return listSources(path.join(root, "test")).flatMap((f) => scanTestSource(path.relative(root, f), readFileSync(f, "utf8")));
}
