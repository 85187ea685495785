/**
 * Response comparison as done by hive's rpc-compat simulator (main.go `runTest`):
 *
 * - exact structural JSON equality (`nsf/jsondiff` FullMatch): object key order is irrelevant,
 *   missing and extra keys both fail, arrays compare element-wise, strings (including hex
 *   quantities) compare as strings, numbers numerically;
 * - `error.message` is removed wherever *both* sides have an `error` object carrying a
 *   `message`, at the top level and nested (e.g. eth_simulateV1 `calls[].error`); the walk does
 *   not descend into an error object itself. Codes, `data` and any other fields still count;
 * - speconly tests: a response without an `error` member is only checked for schema validity in
 *   hive (OpenRPC result schema). Without a schema here it passes when it carries a non-null
 *   `result` of the same JSON type as the recorded one. Error responses are diffed exactly.
 */
import type { Json } from "../helpers/rpc.js";

/** Outcome of one comparison. */
export interface CompareResult {
  ok: boolean;
  /** human-readable differences (first difference first), present when !ok */
  diff?: string;
  /** true when error messages were removed before comparing */
  redacted?: boolean;
}

/** Options of {@link compareResponse}. */
export interface CompareOptions {
  /** the test is speconly (see module doc) */
  speconly?: boolean;
  /** maximum number of differences listed in `diff`; default 20 */
  maxDiffs?: number;
}

type JsonObject = { [key: string]: Json };

function isObject(v: Json | undefined): v is JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function jsonType(v: Json | undefined): string {
  if (v === undefined) return "undefined";
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function clone<T extends Json>(v: T): T {
  return structuredClone(v);
}

/** Renders a value compactly for diff output. */
function show(v: Json | undefined, max = 200): string {
  if (v === undefined) return "(absent)";
  const s = JSON.stringify(v);
  return s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/**
 * Returns copies of `actual` and `expected` with `message` removed from every `error` object
 * present (with a `message`) on both sides at the same path — hive's `redactErrorMessages`.
 */
export function redactErrorMessages(actual: Json, expected: Json): { actual: Json; expected: Json; redacted: boolean } {
  const a = clone(actual);
  const e = clone(expected);
  let redacted = false;
  const walk = (av: Json | undefined, ev: Json | undefined): void => {
    if (isObject(ev)) {
      if (!isObject(av)) return;
      for (const key of Object.keys(ev)) {
        if (!(key in av)) continue;
        const aChild = av[key];
        const eChild = ev[key];
        if (key === "error") {
          if (isObject(aChild) && isObject(eChild) && "message" in aChild && "message" in eChild) {
            delete aChild.message;
            delete eChild.message;
            redacted = true;
          }
          continue; // never descend into an error object
        }
        walk(aChild, eChild);
      }
    } else if (Array.isArray(ev)) {
      if (!Array.isArray(av)) return;
      const n = Math.min(av.length, ev.length);
      for (let i = 0; i < n; i++) walk(av[i], ev[i]);
    }
  };
  walk(a, e);
  return { actual: a, expected: e, redacted };
}

/**
 * Lists structural differences between `actual` and `expected` (empty when equal), walking in a
 * stable order: keys of `expected` first (missing / different), then unexpected keys of `actual`.
 * @param limit stop after this many differences
 */
export function diffJson(actual: Json | undefined, expected: Json | undefined, path = "$", limit = 20): string[] {
  const out: string[] = [];
  const walk = (a: Json | undefined, e: Json | undefined, p: string): void => {
    if (out.length >= limit) return;
    const ta = jsonType(a);
    const te = jsonType(e);
    if (ta !== te) {
      out.push(`${p}: expected ${te} ${show(e)}, got ${ta} ${show(a)}`);
      return;
    }
    if (isObject(e) && isObject(a)) {
      const eKeys = Object.keys(e).sort();
      for (const k of eKeys) {
        if (out.length >= limit) return;
        if (!(k in a)) out.push(`${childPath(p, k)}: missing field (expected ${show(e[k])})`);
        else walk(a[k], e[k], childPath(p, k));
      }
      for (const k of Object.keys(a).sort()) {
        if (out.length >= limit) return;
        if (!(k in e)) out.push(`${childPath(p, k)}: unexpected field (got ${show(a[k])})`);
      }
      return;
    }
    if (Array.isArray(e) && Array.isArray(a)) {
      if (a.length !== e.length) out.push(`${p}: array length ${a.length}, expected ${e.length}`);
      const n = Math.min(a.length, e.length);
      for (let i = 0; i < n && out.length < limit; i++) walk(a[i], e[i], childPath(p, i));
      return;
    }
    // primitives of the same type: strings exactly, numbers numerically, booleans, null
    if (a !== e) out.push(`${p}: expected ${show(e)}, got ${show(a)}`);
  };
  walk(actual, expected, path);
  return out;
}

/**
 * Compares a parsed JSON-RPC response with the recorded expectation (see module doc).
 * @param actual the node's response, parsed
 * @param expected the `<<` line, parsed
 */
export function compareResponse(actual: Json, expected: Json, opts: CompareOptions = {}): CompareResult {
  const limit = opts.maxDiffs ?? 20;
  if (opts.speconly === true && !(isObject(actual) && "error" in actual)) {
    if (!isObject(actual) || !("result" in actual)) {
      return { ok: false, diff: `$: speconly test: response has neither result nor error: ${show(actual)}` };
    }
    const result = actual.result;
    if (result === null || result === undefined) return { ok: false, diff: "$.result: speconly test: result is null" };
    const want = isObject(expected) ? expected.result : undefined;
    if (want !== undefined && want !== null && jsonType(want) !== jsonType(result)) {
      return { ok: false, diff: `$.result: speconly test: expected a ${jsonType(want)} result, got ${jsonType(result)} ${show(result)}` };
    }
    return { ok: true };
  }
  const { actual: a, expected: e, redacted } = redactErrorMessages(actual, expected);
  const diffs = diffJson(a, e, "$", limit);
  if (diffs.length === 0) return { ok: true, redacted };
  const note = redacted ? "\n(error messages removed from comparison)" : "";
  const more = diffs.length >= limit ? `\n… (stopped after ${limit} differences)` : "";
  return { ok: false, diff: diffs.join("\n") + more + note, redacted };
}

/**
 * Like {@link compareResponse} but takes the raw HTTP body (trimmed first); a body that is not
 * valid JSON fails.
 */
export function compareResponseText(actualText: string, expected: Json, opts: CompareOptions = {}): CompareResult {
  let actual: Json;
  try {
    actual = JSON.parse(actualText.trim()) as Json;
  } catch {
    return { ok: false, diff: `response is not valid JSON: ${show(actualText)}` };
  }
  return compareResponse(actual, expected, opts);
}
