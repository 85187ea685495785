/**
 * Contracts between the JSON-RPC transport (server, envelope) and the method families.
 */

/**
 * A result that is already serialized JSON text. Method handlers return it when they hold
 * the final bytes (response caches), so the envelope splices it in without re-encoding.
 *
 * Held either as text, or — {@link RawJson.encoded}, for answers served many times — as UTF-8
 * bytes followed by the `}` that closes a response object, so an HTTP answer writes them as
 * they are (no string→bytes conversion, no copy of the result per request).
 */
export class RawJson {
  /** The JSON text (text-held results). */
  private readonly text: string | undefined;
  /** The JSON's UTF-8 bytes, then `}` (byte-held results). */
  private readonly closed: Buffer | undefined;

  /** A result held as the given JSON text, or with `encode` as its UTF-8 bytes (see {@link RawJson.encoded}). */
  constructor(json: string, encode = false) {
    this.text = encode ? undefined : json;
    this.closed = encode ? Buffer.from(`${json}}`, "utf8") : undefined;
  }

  /** A result held as UTF-8 bytes, encoded once here (the response cache's answers). */
  static encoded(json: string): RawJson {
    return new RawJson(json, true);
  }

  /** The JSON text (decoded from the bytes of a byte-held result, per call). */
  get json(): string {
    return this.text ?? (this.closed as Buffer).toString("utf8", 0, (this.closed as Buffer).length - 1);
  }

  /** Length of the JSON in UTF-8 bytes. */
  get byteLength(): number {
    return this.text === undefined ? (this.closed as Buffer).length - 1 : Buffer.byteLength(this.text, "utf8");
  }

  /**
   * For a byte-held result, its UTF-8 bytes followed by `}`: the tail of a response object
   * `{"jsonrpc":"2.0","id":…,"result":` + this. Undefined for a text-held result.
   */
  get bytesThenClose(): Buffer | undefined {
    return this.closed;
  }
}

/** What a handler may return: a JSON-serializable value, or pre-serialized JSON. */
type RpcResult = unknown;

/** Per-request context passed to every handler. */
export interface RpcContext {
  /** Which server the request came in on: the public HTTP/WS port, the authenticated Engine port or the consensus-side (rollup) port. */
  transport: "http" | "ws" | "engine" | "rollup";
  /**
   * Remote address, for logs and rate limits. Over HTTP it is read from the connection when first
   * asked for: read it during the call (a context kept past the answer may give "").
   */
  readonly remoteAddress?: string;
}

/** A method handler. `params` is the raw params array ([] when absent). */
export type MethodHandler = (params: unknown[], ctx: RpcContext) => RpcResult | Promise<RpcResult>;

/** A table of handlers by method name; each method family exports one. Not changed once served (the envelope remembers lookups). */
export type MethodTable = Record<string, MethodHandler>;
