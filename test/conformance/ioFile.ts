/**
 * Loader for ethereum/execution-apis rpc-compat `.io` test files, following hive's
 * `simulators/ethereum/rpc-compat/testload.go`:
 *
 * - lines are trimmed, blank lines skipped;
 * - `//` comment lines before the first request/response form the description (the leading
 *   `//` and one space are removed); a comment whose text starts with `speconly:` marks the
 *   test speconly; comments after the first `>>`/`<<` are ignored;
 * - `>> {json}` is a request (sent verbatim), `<< {json}` the expected response;
 * - any other line is an error.
 *
 * Additionally (hive fails these at run time) a response must follow a request, each request
 * must be answered before the next one, and the file must not end with an unanswered request.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Json } from "../helpers/rpc.js";

/** One request/expected-response round trip. */
export interface IoPair {
  /** raw request JSON text, exactly as in the file after `>>` (trimmed); send it verbatim */
  request: string;
  /** expected response, parsed */
  expected: Json;
  /** raw expected-response text after `<<` (trimmed) */
  expectedRaw: string;
  /** 1-based line number of the request in the file */
  line: number;
}

/** A parsed `.io` test. */
export interface IoTest {
  /** `<method>/<file name without .io>` as hive names it */
  name: string;
  /** the method directory the file lives in */
  method: string;
  /** header comment text (lines joined with "\n", without the trailing newline) */
  description: string;
  /** true when a header comment starts with `speconly:` */
  speconly: boolean;
  pairs: IoPair[];
  /** absolute file path when loaded from disk */
  file?: string;
}

/** A malformed `.io` file. */
export class IoParseError extends Error {
  constructor(
    readonly testName: string,
    readonly line: number,
    message: string,
  ) {
    super(`${testName}:${line}: ${message}`);
    this.name = "IoParseError";
  }
}

function shorten(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Parses the text of one `.io` file.
 * @param text file contents
 * @param name test name, `<method>/<file>`; the method is the part before the first "/"
 * @throws IoParseError on any malformed line or request/response sequence
 */
export function parseIoFile(text: string, name: string): IoTest {
  const slash = name.indexOf("/");
  const method = slash >= 0 ? name.slice(0, slash) : name;
  const header: string[] = [];
  let speconly = false;
  let inHeader = true;
  const pairs: IoPair[] = [];
  let pending: { request: string; line: number } | undefined;

  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = (lines[i] as string).trim();
    if (line.length === 0) continue;
    if (line.startsWith("//")) {
      if (!inHeader) continue;
      const comment = line.slice(2).replace(/^ /, "");
      header.push(comment);
      if (comment.startsWith("speconly:")) speconly = true;
      continue;
    }
    if (line.startsWith(">>") || line.startsWith("<<")) {
      inHeader = false;
      const data = line.slice(2).trim();
      let parsed: Json;
      try {
        parsed = JSON.parse(data) as Json;
      } catch (err) {
        throw new IoParseError(name, lineNo, `invalid JSON (${(err as Error).message}) in line ${JSON.stringify(shorten(line))}`);
      }
      if (line.startsWith(">>")) {
        if (pending !== undefined) throw new IoParseError(name, lineNo, `request at line ${pending.line} has no response`);
        pending = { request: data, line: lineNo };
      } else {
        if (pending === undefined) throw new IoParseError(name, lineNo, "response before request");
        pairs.push({ request: pending.request, expected: parsed, expectedRaw: data, line: pending.line });
        pending = undefined;
      }
      continue;
    }
    throw new IoParseError(name, lineNo, `invalid test line: ${JSON.stringify(shorten(line))}`);
  }
  if (pending !== undefined) throw new IoParseError(name, pending.line, "unhandled request: no response follows");
  if (pairs.length === 0) throw new IoParseError(name, lines.length, "no request/response pairs");
  return { name, method, description: header.join("\n"), speconly, pairs };
}

/**
 * Reads and parses one `.io` file.
 * @param file path of the file
 * @param name test name; default `<parent dir>/<basename without .io>`
 */
export function loadIoFile(file: string, name?: string): IoTest {
  const testName = name ?? `${path.basename(path.dirname(file))}/${path.basename(file, ".io")}`;
  const test = parseIoFile(readFileSync(file, "utf8"), testName);
  test.file = path.resolve(file);
  return test;
}

/** Byte-wise (code unit) string order, like Go's sort.Strings used by filepath.Walk. */
export function lexicalCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Method directories of a suite (every sub-directory holding at least one `.io` file), sorted.
 * @param suiteDir e.g. /work/shared/fixtures/execution-apis/prague
 */
export function listSuiteMethods(suiteDir: string): string[] {
  return readdirSync(suiteDir)
    .filter((entry) => {
      const full = path.join(suiteDir, entry);
      return statSync(full).isDirectory() && readdirSync(full).some((f) => f.endsWith(".io"));
    })
    .sort(lexicalCompare);
}

/**
 * Loads every `<method>/<name>.io` of a suite in hive's order: lexical by method directory,
 * then by file name (the order filepath.Walk visits them).
 * @param suiteDir suite root
 * @param filter optional regexp matched against the test name `<method>/<name>` (like hive's --sim.limit)
 */
export function loadSuiteTests(suiteDir: string, filter?: RegExp): IoTest[] {
  const tests: IoTest[] = [];
  for (const method of listSuiteMethods(suiteDir)) {
    const dir = path.join(suiteDir, method);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".io"))
      .sort(lexicalCompare);
    for (const f of files) {
      const name = `${method}/${f.slice(0, -3)}`;
      if (filter !== undefined && !filter.test(name)) continue;
      tests.push(loadIoFile(path.join(dir, f), name));
    }
  }
  return tests;
}
