/**
 * JSON-RPC 2.0 envelope processing, independent of the transport (HTTP, WebSocket).
 *
 * Behaviour follows geth's `rpc` package wherever clients can observe it: the same error
 * codes and messages, ids echoed byte for byte, notifications executed but not answered,
 * and the same batch limits (request count and accumulated result size).
 */
import { MAX_BATCH_LENGTH } from "../config/constants.js";
import { MAX_BATCH_RESPONSE_BYTES, MAX_JSON_DEPTH } from "./constants.js";
import { InvalidParamsError, MethodNotFoundError, RpcCode, toJsonRpcError } from "./errors.js";
import type { JsonRpcErrorObject } from "./errors.js";
import {
  INVALID_METHOD_LABEL,
  UNKNOWN_METHOD_LABEL,
  rpcBatchSize,
  rpcErrorsTotal,
  rpcRequestDuration,
  type MethodRecord,
} from "./metrics.js";
import { RawJson } from "./types.js";
import type { MethodHandler, MethodTable, RpcContext } from "./types.js";

/** geth's code for the entries of a batch whose accumulated results exceed the size limit. */
const RESPONSE_TOO_LARGE_CODE = -32003;

/** Limits applied by {@link handleBody}; 0 disables a limit (as in geth). */
export interface HandleBodyOptions {
  /** Most entries in one batch (default {@link MAX_BATCH_LENGTH}). */
  maxBatch?: number;
  /** Most result bytes of one batch before the rest is answered with -32003 (default {@link MAX_BATCH_RESPONSE_BYTES}). */
  maxBatchResponseBytes?: number;
}

/**
 * A single call's response whose result is held as bytes ({@link RawJson.encoded}): the
 * response is `head` (`{"jsonrpc":"2.0","id":<id>,"result":`) followed by `tail` (the result's
 * UTF-8 bytes and the closing `}`), written by the HTTP server without joining them.
 */
export class SplicedResponse {
  constructor(
    /** The response text up to the result. */
    readonly head: string,
    /** The result's bytes and the closing brace (shared with the cache: never modified). */
    readonly tail: Buffer,
  ) {}

  /** The whole response as text. */
  toString(): string {
    return this.head + this.tail.toString("utf8");
  }

  /** The whole response as UTF-8 bytes (a copy of the tail). */
  toBuffer(): Buffer {
    const head = Buffer.from(this.head, "utf8");
    return Buffer.concat([head, this.tail], head.length + this.tail.length);
  }
}

/** What {@link answerBody} produces: response text, or a single call's response in two parts. */
export type ResponseBody = string | SplicedResponse;

/** One answer of a request: its id text, its response and its result (for the batch size limit). */
interface Answer {
  id: string;
  text: ResponseBody;
  /** The result's JSON, measured only by batches (undefined for errors). */
  result?: string | RawJson;
}

/** UTF-8 size of an answer's result, as the batch response limit counts it. */
function resultBytes(a: Answer): number {
  if (a.result === undefined) return 0;
  return typeof a.result === "string" ? Buffer.byteLength(a.result, "utf8") : a.result.byteLength;
}

const NULL_ID = "null";

/** `{"jsonrpc":"2.0","id":<id>,"error":{...}}` with the error object serialized as given. */
function errorText(id: string, error: JsonRpcErrorObject): string {
  let body: string;
  try {
    body = JSON.stringify(error);
  } catch {
    // `data` that cannot be serialized (bigint, cycles) is dropped rather than losing the error.
    body = JSON.stringify({ code: error.code, message: error.message });
  }
  return `{"jsonrpc":"2.0","id":${id},"error":${body}}`;
}

function errorAnswer(id: string, code: number, message: string): Answer {
  return { id, text: errorText(id, { code, message }) };
}

// ---------------------------------------------------------------------------------------
// Pre-parse scan: nesting depth and raw id text
// ---------------------------------------------------------------------------------------

/** What the pre-parse scan learned about a body. */
interface ScanResult {
  /** Nesting exceeded the limit; the body must not reach JSON.parse. */
  tooDeep: boolean;
  /** The body holds nothing but whitespace. */
  empty: boolean;
  /** Raw source text of each request's primitive `id` value, by request index (0 for a single request). */
  rawIds: Map<number, string>;
}

const OPEN_OBJ = 0x7b; // {
const CLOSE_OBJ = 0x7d; // }
const OPEN_ARR = 0x5b; // [
const CLOSE_ARR = 0x5d; // ]
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Index of the quote closing the string opened at `start`, or -1 when unterminated. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let backslashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return q;
    from = q + 1;
  }
}

function skipWs(text: string, i: number): number {
  while (i < text.length && isWs(text.charCodeAt(i))) i++;
  return i;
}

/** End (exclusive) of the primitive JSON value starting at `i` (string, number, literal). */
function primitiveEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === QUOTE) {
    const q = stringEnd(text, i);
    return q < 0 ? -1 : q + 1;
  }
  let j = i;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === COMMA || c === CLOSE_OBJ || c === CLOSE_ARR || isWs(c)) break;
    j++;
  }
  return j;
}

/**
 * Walks the body once without building values: rejects nesting deeper than `maxDepth`
 * (so hostile input cannot exhaust the stack of JSON.parse) and records the raw text of each
 * request's `id` member, so ids are echoed exactly as sent (`1.0`, `1e2`, 2^64, escapes).
 * The scan trusts JSON.parse to reject malformed input; on such input its findings are unused.
 */
function scanBody(text: string, maxDepth: number): ScanResult {
  const rawIds = new Map<number, string>();
  const n = text.length;
  let i = skipWs(text, 0);
  if (i >= n) return { tooDeep: false, empty: true, rawIds };

  const isBatch = text.charCodeAt(i) === OPEN_ARR;
  /** Depth of a request object's members: 1 for a single request, 2 inside a batch. */
  const reqDepth = isBatch ? 2 : 1;
  /** Container kind at each depth: true for an object. */
  const isObject: boolean[] = [false];
  let depth = 0;
  let index = 0;
  let expectKey = false;

  for (; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      if (expectKey && depth === reqDepth) {
        expectKey = false;
        const raw = text.slice(i + 1, end);
        let key = raw;
        if (raw.includes("\\")) {
          try {
            key = JSON.parse(text.slice(i, end + 1)) as string;
          } catch {
            key = raw;
          }
        }
        if (key === "id") {
          let v = skipWs(text, end + 1);
          if (text.charCodeAt(v) === COLON) {
            v = skipWs(text, v + 1);
            const vc = text.charCodeAt(v);
            const vEnd = vc === OPEN_OBJ || vc === OPEN_ARR ? -1 : primitiveEnd(text, v);
            // Duplicate keys: the last one wins, as in JSON.parse.
            if (vEnd > v) rawIds.set(index, text.slice(v, vEnd));
            else rawIds.delete(index);
          }
        }
      }
      i = end;
    } else if (c === OPEN_OBJ || c === OPEN_ARR) {
      depth++;
      if (depth > maxDepth) return { tooDeep: true, empty: false, rawIds };
      isObject[depth] = c === OPEN_OBJ;
      if (depth === reqDepth) expectKey = isObject[depth] === true;
    } else if (c === CLOSE_OBJ || c === CLOSE_ARR) {
      depth--;
      if (depth < 0) break;
    } else if (c === COMMA) {
      if (isBatch && depth === 1) index++;
      else if (depth === reqDepth && isObject[depth] === true) expectKey = true;
    }
  }
  return { tooDeep: false, empty: false, rawIds };
}

// ---------------------------------------------------------------------------------------
// Fast parse of the common single call
// ---------------------------------------------------------------------------------------

/** A single call read by {@link parseSimpleCall}: the raw id text, the method and the params. */
interface SimpleCall {
  id: string;
  method: string;
  params: unknown[] | null | undefined;
}

const LOWER_E = 0x65;
const UPPER_E = 0x45;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

function isDigit(c: number): boolean {
  return c >= DIGIT_0 && c <= DIGIT_9;
}

/** End (exclusive) of a JSON number at `i` per the JSON grammar, or -1. */
function numberEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === MINUS) i++;
  if (text.charCodeAt(i) === DIGIT_0) i++;
  else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++;
  else return -1;
  if (text.charCodeAt(i) === DOT) {
    i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === LOWER_E || e === UPPER_E) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === PLUS || sign === MINUS) i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

/** End (exclusive, past the closing quote) of a string at `i` holding no escape or control character, or -1. */
function plainStringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}

/** The simple value at `i` (plain string, number, true, false, null) and where it ends, or undefined. */
function simpleValue(text: string, i: number): { value: unknown; end: number } | undefined {
  const c = text.charCodeAt(i);
  if (c === QUOTE) {
    const end = plainStringEnd(text, i);
    return end < 0 ? undefined : { value: text.slice(i + 1, end - 1), end };
  }
  if (c === MINUS || isDigit(c)) {
    const end = numberEnd(text, i);
    return end < 0 ? undefined : { value: Number(text.slice(i, end)), end };
  }
  if (text.startsWith("true", i)) return { value: true, end: i + 4 };
  if (text.startsWith("false", i)) return { value: false, end: i + 5 };
  if (text.startsWith("null", i)) return { value: null, end: i + 4 };
  return undefined;
}

/**
 * Reads the usual single call — an object with exactly the members `jsonrpc` ("2.0"), `id`,
 * `method` (a non-empty string) and optionally `params` (null, or an array of plain strings,
 * numbers, true, false, null), each once, in any order, with any JSON whitespace — in one pass,
 * without JSON.parse or the general scan. Whatever else (other members, escapes, nested
 * values, batches, notifications, malformed JSON) gives undefined, and the body takes the
 * general path; what this returns is exactly what the general path reads from the same text
 * (the id as its raw source text).
 */
export function parseSimpleCall(text: string): SimpleCall | undefined {
  let i = skipWs(text, 0);
  if (text.charCodeAt(i) !== OPEN_OBJ) return undefined;
  let jsonrpc: unknown;
  let id: string | undefined;
  let method: unknown;
  let params: unknown[] | null | undefined;
  let hasParams = false;
  for (;;) {
    i = skipWs(text, i + 1);
    const keyEnd = plainStringEnd(text, i);
    if (text.charCodeAt(i) !== QUOTE || keyEnd < 0) return undefined;
    const key = text.slice(i + 1, keyEnd - 1);
    i = skipWs(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return undefined;
    i = skipWs(text, i + 1);
    if (key === "params") {
      if (hasParams) return undefined;
      hasParams = true;
      if (text.charCodeAt(i) === OPEN_ARR) {
        params = [];
        i = skipWs(text, i + 1);
        if (text.charCodeAt(i) === CLOSE_ARR) i++;
        else {
          for (;;) {
            const v = simpleValue(text, i);
            if (v === undefined) return undefined;
            params.push(v.value);
            i = skipWs(text, v.end);
            const c = text.charCodeAt(i);
            if (c === CLOSE_ARR) {
              i++;
              break;
            }
            if (c !== COMMA) return undefined;
            i = skipWs(text, i + 1);
          }
        }
      } else if (text.startsWith("null", i)) {
        params = null;
        i += 4;
      } else return undefined;
    } else {
      const v = simpleValue(text, i);
      if (v === undefined) return undefined;
      if (key === "id" && id === undefined) id = text.slice(i, v.end);
      else if (key === "jsonrpc" && jsonrpc === undefined) jsonrpc = v.value;
      else if (key === "method" && method === undefined) method = v.value;
      else return undefined; // another member, or one given twice
      i = v.end;
    }
    i = skipWs(text, i);
    const c = text.charCodeAt(i);
    if (c === CLOSE_OBJ) break;
    if (c !== COMMA) return undefined;
  }
  if (skipWs(text, i + 1) !== text.length) return undefined;
  if (jsonrpc !== "2.0" || typeof method !== "string" || method === "" || id === undefined) return undefined;
  return { id, method, params };
}

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** geth's `hasValidID`: present and not an object or array (numbers, strings, null, booleans). */
function isValidId(v: unknown): boolean {
  return v === null || typeof v !== "object";
}

/** A parsed request classified as geth does. */
type Classified =
  | { kind: "call"; id: string; method: string; params: unknown }
  | { kind: "notification"; method: string; params: unknown }
  | { kind: "invalid"; id: string };

function classify(req: unknown, rawId: string | undefined): Classified {
  if (!isPlainObject(req)) return { kind: "invalid", id: NULL_ID };
  const hasId = Object.hasOwn(req, "id");
  const validId = hasId && isValidId(req.id);
  const id = validId ? (rawId ?? JSON.stringify(req.id)) : NULL_ID;
  const method = typeof req.method === "string" ? req.method : "";
  if (req.jsonrpc === "2.0" && method !== "") {
    if (!hasId) return { kind: "notification", method, params: req.params };
    if (validId) return { kind: "call", id, method, params: req.params };
  }
  return { kind: "invalid", id };
}

/** A value, or a promise of it: calls of synchronous handlers are answered without a microtask. */
type MaybePromise<T> = T | Promise<T>;

/** True for what `await` would wait on. */
function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (typeof v === "object" || typeof v === "function") && v !== null && typeof (v as { then?: unknown }).then === "function";
}

/** Calls `handler` (undefined: `method` is not served) with checked params; returns what it returns (maybe a promise), throws what it throws. */
function invoke(handler: MethodHandler | undefined, method: string, rawParams: unknown, ctx: RpcContext): unknown {
  if (handler === undefined) throw new MethodNotFoundError(method);
  let params: unknown[];
  if (rawParams === undefined || rawParams === null) params = [];
  else if (Array.isArray(rawParams)) params = rawParams;
  else throw new InvalidParamsError("non-array args"); // geth's message for object params
  return handler(params, ctx);
}

/** The response of a call with result `json`: a {@link SplicedResponse} when the result is held as bytes. */
function resultText(id: string, json: string | RawJson): ResponseBody {
  if (typeof json === "string") return `{"jsonrpc":"2.0","id":${id},"result":${json}}`;
  const tail = json.bytesThenClose;
  if (tail !== undefined) return new SplicedResponse(`{"jsonrpc":"2.0","id":${id},"result":`, tail);
  return `{"jsonrpc":"2.0","id":${id},"result":${json.json}}`;
}

type Executable = Extract<Classified, { kind: "call" | "notification" }>;

/** The answer of a call whose handler returned `result` (serialization errors answer as handler errors). */
function succeeded(req: Executable, label: string, result: unknown): Answer | null {
  let json: string | RawJson;
  try {
    json = result instanceof RawJson ? result : (JSON.stringify(result) ?? "null");
  } catch (err) {
    return failed(req, label, err);
  }
  if (req.kind === "notification") return null;
  return { id: req.id, text: resultText(req.id, json), result: json };
}

/** The answer of a call whose handler threw or rejected with `err`. */
function failed(req: Executable, label: string, err: unknown): Answer | null {
  const error = toJsonRpcError(err);
  rpcErrorsTotal.inc({ method: label, code: String(error.code) });
  if (req.kind === "notification") return null;
  return { id: req.id, text: errorText(req.id, error) };
}

/** The last method looked up, by table: a method name from the body is a new string each time, so finding it as a property means interning it first. */
let lastLookUp: { methods: MethodTable; method: string; handler: MethodHandler | undefined; label: string; record: MethodRecord } | undefined;

/** The handler of `method` in `methods` (undefined when not served), its metrics label and record; the last answer is reused for the same table and name. */
function lookUp(methods: MethodTable, method: string): { handler: MethodHandler | undefined; label: string; record: MethodRecord } {
  const last = lastLookUp;
  if (last !== undefined && last.methods === methods && last.method === method) return last;
  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
  const label = handler === undefined ? UNKNOWN_METHOD_LABEL : method;
  const found = { methods, method, handler, label, record: rpcRequestDuration.recordOf(label) };
  lastLookUp = found;
  return found;
}

/**
 * Executes a call or notification with metrics: the answer, or null for notifications —
 * synchronously when the handler returns a plain value, else a promise of it.
 */
function execute(req: Executable, methods: MethodTable, ctx: RpcContext): MaybePromise<Answer | null> {
  const { handler, label, record } = lookUp(methods, req.method);
  record.requests[ctx.transport]++;
  const started = performance.now();
  const stopTimer = (): void => rpcRequestDuration.observeRecord(record, (performance.now() - started) / 1000);
  let result: unknown;
  try {
    result = invoke(handler, req.method, req.params, ctx);
  } catch (err) {
    stopTimer();
    return failed(req, label, err);
  }
  if (!isThenable(result)) {
    const answer = succeeded(req, label, result);
    stopTimer();
    return answer;
  }
  return Promise.resolve(result).then(
    (value) => {
      const answer = succeeded(req, label, value);
      stopTimer();
      return answer;
    },
    (err: unknown) => {
      stopTimer();
      return failed(req, label, err);
    },
  );
}

/** Answers one parsed request (single or batch entry). */
function handleRequest(req: unknown, rawId: string | undefined, methods: MethodTable, ctx: RpcContext): MaybePromise<Answer | null> {
  const c = classify(req, rawId);
  if (c.kind === "invalid") {
    rpcErrorsTotal.inc({ method: INVALID_METHOD_LABEL, code: String(RpcCode.InvalidRequest) });
    return errorAnswer(c.id, RpcCode.InvalidRequest, "invalid request");
  }
  return execute(c, methods, ctx);
}

async function handleBatch(
  batch: unknown[],
  rawIds: Map<number, string>,
  methods: MethodTable,
  ctx: RpcContext,
  maxBatch: number,
  maxResponseBytes: number,
): Promise<string | null> {
  if (batch.length === 0) return errorText(NULL_ID, { code: RpcCode.InvalidRequest, message: "empty batch" });
  rpcBatchSize.observe(batch.length);
  if (maxBatch > 0 && batch.length > maxBatch) {
    // geth answers a one-element batch carrying the id of the first call.
    let id = NULL_ID;
    for (let i = 0; i < batch.length; i++) {
      const c = classify(batch[i], rawIds.get(i));
      if (c.kind === "call") {
        id = c.id;
        break;
      }
    }
    rpcErrorsTotal.inc({ method: INVALID_METHOD_LABEL, code: String(RpcCode.InvalidRequest) });
    return `[${errorText(id, { code: RpcCode.InvalidRequest, message: "batch too large" })}]`;
  }

  const answers = await Promise.all(batch.map((req, i) => handleRequest(req, rawIds.get(i), methods, ctx)));
  const parts: string[] = [];
  let total = 0;
  let overflow = false;
  for (const a of answers) {
    if (a === null) continue;
    if (overflow) {
      parts.push(errorText(a.id, { code: RESPONSE_TOO_LARGE_CODE, message: "response too large" }));
      continue;
    }
    parts.push(String(a.text));
    total += resultBytes(a);
    // As geth: the answer that crosses the limit is kept, every later one is replaced.
    if (maxResponseBytes > 0 && total > maxResponseBytes) overflow = true;
  }
  return parts.length === 0 ? null : `[${parts.join(",")}]`;
}

/**
 * Processes one JSON-RPC 2.0 message (single request or batch) and returns the response
 * text, or null when nothing is to be answered (notifications only, or an empty body).
 * {@link answerBody} with the answer as text.
 */
export async function handleBody(
  body: string | Buffer,
  methods: MethodTable,
  ctx: RpcContext,
  opts: HandleBodyOptions = {},
): Promise<string | null> {
  const out = await answerBody(body, methods, ctx, opts);
  return out === null ? null : String(out);
}

/**
 * Processes one JSON-RPC 2.0 message (single request or batch) and returns the response —
 * text, or for a single call whose result is held as bytes a {@link SplicedResponse} — or null
 * when nothing is to be answered (notifications only, or an empty body).
 *
 * - Broken JSON: -32700 "parse error"; nesting deeper than MAX_JSON_DEPTH: -32600 before parsing.
 * - Empty batch: one error object (-32600 "empty batch"); batch longer than `maxBatch`:
 *   a one-element batch with -32600 "batch too large" (geth's answer).
 * - Invalid request objects: -32600 "invalid request"; unknown method: -32601; params neither
 *   absent, null nor an array: -32602 "non-array args" (geth).
 * - Handler errors go through {@link toJsonRpcError}; `RawJson` results are spliced verbatim.
 * - Batch entries run concurrently; answers keep request order; once the results exceed
 *   `maxBatchResponseBytes`, the remaining answers become -32003 "response too large".
 */
export function answerBody(
  body: string | Buffer,
  methods: MethodTable,
  ctx: RpcContext,
  opts: HandleBodyOptions = {},
): MaybePromise<ResponseBody | null> {
  const text = typeof body === "string" ? body : body.toString("utf8");
  const simple = parseSimpleCall(text);
  if (simple !== undefined) {
    const answer = execute({ kind: "call", id: simple.id, method: simple.method, params: simple.params }, methods, ctx);
    return answer instanceof Promise ? answer.then(textOf) : textOf(answer);
  }
  const scan = scanBody(text, MAX_JSON_DEPTH);
  if (scan.empty) return null; // geth writes nothing for an empty body
  if (scan.tooDeep) {
    rpcErrorsTotal.inc({ method: INVALID_METHOD_LABEL, code: String(RpcCode.InvalidRequest) });
    return errorText(NULL_ID, {
      code: RpcCode.InvalidRequest,
      message: `invalid request: JSON nesting deeper than ${MAX_JSON_DEPTH}`,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    rpcErrorsTotal.inc({ method: INVALID_METHOD_LABEL, code: String(RpcCode.ParseError) });
    return errorText(NULL_ID, { code: RpcCode.ParseError, message: "parse error" });
  }
  if (Array.isArray(parsed)) {
    return handleBatch(
      parsed,
      scan.rawIds,
      methods,
      ctx,
      opts.maxBatch ?? MAX_BATCH_LENGTH,
      opts.maxBatchResponseBytes ?? MAX_BATCH_RESPONSE_BYTES,
    );
  }
  const answer = handleRequest(parsed, scan.rawIds.get(0), methods, ctx);
  return answer instanceof Promise ? answer.then(textOf) : textOf(answer);
}

function textOf(answer: Answer | null): ResponseBody | null {
  return answer === null ? null : answer.text;
}
