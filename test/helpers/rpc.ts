/**
 * Tiny JSON-RPC over HTTP client for tests (global fetch, per-request timeout).
 */
import { engineAuthHeader } from "./jwt.js";

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON-RPC 2.0 response as received (fields are not validated). */
export interface JsonRpcResponse {
  jsonrpc?: string;
  id?: Json;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

/** Options for one HTTP POST. */
export interface PostOptions {
  /** whole-request timeout in ms (connect + send + read body); default 5000, hive's value */
  timeoutMs?: number;
  /** extra HTTP headers */
  headers?: Record<string, string>;
}

/** Raw HTTP answer. */
export interface RawResponse {
  status: number;
  body: string;
}

/** Default per-request timeout (hive rpc-compat uses a 5 s HTTP client timeout). */
export const DEFAULT_RPC_TIMEOUT_MS = 5000;

/**
 * POSTs `body` verbatim as `application/json` and returns status and body text.
 * Rejects on network errors and on timeout (message names the URL and the limit).
 */
export async function postRaw(url: string, body: string, opts: PostOptions = {}): Promise<RawResponse> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...opts.headers },
      body,
      signal: controller.signal,
    });
    const text = await res.text();
    return { status: res.status, body: text };
  } catch (err) {
    if (controller.signal.aborted) throw new Error(`POST ${url}: timed out after ${timeoutMs} ms`);
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    throw new Error(`POST ${url} failed: ${err instanceof Error ? err.message : String(err)}${cause}`);
  } finally {
    clearTimeout(timer);
  }
}

let nextId = 1;

/**
 * Sends one JSON-RPC call and returns the parsed response object (errors are returned, not thrown).
 * Throws on transport failure or a body that is not a JSON object.
 */
export async function rpcCall(url: string, method: string, params: Json[] = [], opts: PostOptions = {}): Promise<JsonRpcResponse> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params });
  return parseRpcBody(url, await postRaw(url, body, opts));
}

/**
 * Like {@link rpcCall} but returns `result` and throws if the node answered with an error.
 */
export async function rpcResult(url: string, method: string, params: Json[] = [], opts: PostOptions = {}): Promise<Json> {
  const res = await rpcCall(url, method, params, opts);
  if (res.error !== undefined) throw new Error(`${method} failed: ${JSON.stringify(res.error)}`);
  if (!("result" in res)) throw new Error(`${method}: response without result: ${JSON.stringify(res)}`);
  return res.result as Json;
}

/**
 * Sends an already-serialised JSON-RPC request (e.g. a fixture line) to the Engine API with a fresh
 * HS256 bearer token, returning the parsed response.
 */
export async function engineRawCall(engineUrl: string, jwtSecret: Uint8Array | string, body: string, opts: PostOptions = {}): Promise<JsonRpcResponse> {
  const headers = { ...opts.headers, Authorization: engineAuthHeader(jwtSecret) };
  return parseRpcBody(engineUrl, await postRaw(engineUrl, body, { ...opts, headers }));
}

/**
 * One authenticated Engine API call (JWT HS256 bearer token, `iat` = now).
 */
export async function engineCall(engineUrl: string, jwtSecret: Uint8Array | string, method: string, params: Json[] = [], opts: PostOptions = {}): Promise<JsonRpcResponse> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params });
  return engineRawCall(engineUrl, jwtSecret, body, opts);
}

function parseRpcBody(url: string, raw: RawResponse): JsonRpcResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.body);
  } catch {
    throw new Error(`${url}: HTTP ${raw.status}, body is not JSON: ${raw.body.slice(0, 500)}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new Error(`${url}: HTTP ${raw.status}, expected a JSON object: ${raw.body.slice(0, 500)}`);
  }
  return parsed as JsonRpcResponse;
}
