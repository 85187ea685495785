/**
 * Calling an RPC method table in-process (no server): a method's answer as the client would
 * parse it, and the JSON-RPC error object of a method that fails.
 */
import { toJsonRpcError } from "../../src/rpc/errors.js";
import { RawJson, type MethodTable, type RpcContext } from "../../src/rpc/types.js";

const CTX: RpcContext = { transport: "http" };

/** The answer of `method(params)` as JSON would carry it (undefined → null). */
export async function callTable(m: MethodTable, method: string, params: unknown[]): Promise<unknown> {
  const r = await m[method]!(params, CTX);
  return r instanceof RawJson ? JSON.parse(r.json) : JSON.parse(JSON.stringify(r ?? null));
}

/** The JSON-RPC error `method(params)` answers; throws when it succeeds. */
export async function callTableError(m: MethodTable, method: string, params: unknown[]): Promise<{ code: number; message: string }> {
  try {
    await m[method]!(params, CTX);
  } catch (e) {
    return toJsonRpcError(e) as { code: number; message: string };
  }
  throw new Error(`${method} did not fail`);
}
