/**
 * Contracts between the JSON-RPC transport (server, envelope) and the method families.
 */

/**
 * A result that is already serialized JSON text. Method handlers return it when they hold
 * the final bytes (response caches), so the envelope splices it in without re-encoding.
 */
export class RawJson {
  constructor(readonly json: string) {}
}

/** What a handler may return: a JSON-serializable value, or pre-serialized JSON. */
export type RpcResult = unknown;

/** Per-request context passed to every handler. */
export interface RpcContext {
  /** Which server the request came in on: the public HTTP/WS port, the authenticated Engine port or the consensus-side (rollup) port. */
  transport: "http" | "ws" | "engine" | "rollup";
  /** Remote address, for logs and rate limits. */
  remoteAddress?: string;
}

/** A method handler. `params` is the raw params array ([] when absent). */
export type MethodHandler = (params: unknown[], ctx: RpcContext) => RpcResult | Promise<RpcResult>;

/** A table of handlers by method name; each method family exports one. */
export type MethodTable = Record<string, MethodHandler>;
