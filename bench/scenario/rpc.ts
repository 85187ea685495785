/**
 * A small JSON-RPC client for driving the scenario's nodes (not for measuring: the load tool
 * has its own): single calls and batches over HTTP with a whole-request timeout.
 */
import { ScenarioError } from "./errors.js";

/** Default per-request timeout: 30 s, room for a batch of a few hundred transactions on a busy 2-core machine. */
export const DEFAULT_RPC_TIMEOUT_MS = 30_000;

/** One JSON-RPC response object as received. */
export interface RpcResponse {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** One call of a batch. */
export interface RpcRequest {
  method: string;
  params: unknown[];
}

/**
 * POSTs `body` to `url` and returns the response text; throws `BENCH_SCENARIO_RPC` on a
 * transport error, a timeout or a non-200 status.
 */
export async function postText(url: string, body: string, timeoutMs = DEFAULT_RPC_TIMEOUT_MS): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body, signal: controller.signal });
    const text = await res.text();
    if (res.status !== 200) throw new ScenarioError("BENCH_SCENARIO_RPC", `POST ${url}: HTTP ${res.status}, expected 200: ${text.slice(0, 200)}`);
    return text;
  } catch (e) {
    if (e instanceof ScenarioError) throw e;
    const why = controller.signal.aborted ? `no answer within ${timeoutMs} ms` : e instanceof Error ? `${e.message}${causeOf(e)}` : String(e);
    throw new ScenarioError("BENCH_SCENARIO_RPC", `POST ${url} failed: ${why}`, { url }, { cause: e });
  } finally {
    clearTimeout(timer);
  }
}

function causeOf(e: Error): string {
  return e.cause instanceof Error ? `: ${e.cause.message}` : "";
}

/** Calls `method` and returns its result; throws `BENCH_SCENARIO_RPC` when the node answers with an error. */
export async function rpc(url: string, method: string, params: unknown[] = [], timeoutMs?: number): Promise<unknown> {
  const text = await postText(url, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), timeoutMs);
  const res = parseJson(url, text) as RpcResponse;
  if (res.error !== undefined && res.error !== null) {
    throw new ScenarioError("BENCH_SCENARIO_RPC", `${url} ${method}: error ${res.error.code} ${res.error.message}`, { url, method });
  }
  if (!("result" in res)) throw new ScenarioError("BENCH_SCENARIO_RPC", `${url} ${method}: response without result: ${text.slice(0, 200)}`);
  return res.result;
}

/**
 * Sends `calls` as one JSON-RPC batch and returns the responses in request order (matched by
 * id); an element may carry an `error` — the caller decides. Throws when an answer is missing.
 */
export async function rpcBatch(url: string, calls: RpcRequest[], timeoutMs?: number): Promise<RpcResponse[]> {
  if (calls.length === 0) return [];
  const body = JSON.stringify(calls.map((c, i) => ({ jsonrpc: "2.0", id: i, method: c.method, params: c.params })));
  const text = await postText(url, body, timeoutMs);
  const parsed = parseJson(url, text);
  if (!Array.isArray(parsed)) {
    throw new ScenarioError("BENCH_SCENARIO_RPC", `${url}: batch of ${calls.length} answered with a non-array: ${text.slice(0, 200)}`);
  }
  const byId = new Map<unknown, RpcResponse>();
  for (const r of parsed as RpcResponse[]) byId.set(r.id, r);
  return calls.map((c, i) => {
    const r = byId.get(i);
    if (r === undefined) throw new ScenarioError("BENCH_SCENARIO_RPC", `${url}: batch answer lacks the response to call ${i} (${c.method})`);
    return r;
  });
}

function parseJson(url: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ScenarioError("BENCH_SCENARIO_RPC", `${url}: answer is not JSON: ${text.slice(0, 200)}`);
  }
}

/**
 * Polls `eth_chainId` until the node answers (any JSON-RPC answer) or `timeoutMs` passes; calls
 * `alive()` between attempts so a crashed process fails at once (it throws with the reason).
 */
export async function waitForRpc(url: string, timeoutMs: number, alive: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const probe = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] });
  for (;;) {
    alive();
    try {
      await postText(url, probe, 2_000);
      return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new ScenarioError("BENCH_SCENARIO_SPAWN", `${url} did not answer eth_chainId within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
