/**
 * A small JSON-RPC 2.0 client for talking to another node: over HTTP(S) through the global
 * `fetch`, or over WebSocket (`ws` package) with subscriptions and automatic reconnection.
 * Follow mode (`--follow-rpc`) reads blocks with it and `--sequencer-http` forwards
 * transactions with it.
 *
 * Failures are typed: {@link RpcClientError} for transport faults (timeout, connection, a body
 * that is not a JSON-RPC response) and {@link UpstreamRpcError} for an error the remote node
 * answered with. When a handler lets the latter through, src/rpc/errors.ts answers the caller
 * with the upstream code, message and data unchanged.
 */
import type { Logger } from "pino";
import WebSocket from "ws";
import { TypedError } from "../util/errors.js";
import { RPC_CLIENT_TIMEOUT_MS, RPC_CLIENT_WS_RECONNECT_INITIAL_MS, RPC_CLIENT_WS_RECONNECT_MAX_MS, RPC_CLIENT_BODY_EXCERPT_CHARS } from "../config/constants.js";

/** Stable codes of {@link RpcClientError}. */
export const RpcClientErrorCode = {
  /** The request did not complete in time. */
  TIMEOUT: "RPC_CLIENT_TIMEOUT",
  /** Connection refused/reset, DNS failure, socket closed, HTTP status without a JSON-RPC body. */
  TRANSPORT: "RPC_CLIENT_TRANSPORT",
  /** The body is not JSON or not a JSON-RPC response. */
  INVALID_RESPONSE: "RPC_CLIENT_INVALID_RESPONSE",
} as const;
type RpcClientErrorCodeT = (typeof RpcClientErrorCode)[keyof typeof RpcClientErrorCode];

/** A {@link RpcClientError}'s code with its metadata. */
type RpcClientErrorType = { code: RpcClientErrorCodeT; endpoint: string; method: string };

/** A transport-level failure of a JSON-RPC request (no answer from the remote node's handler). */
export class RpcClientError extends TypedError<RpcClientErrorType> {}

/** Stable code of {@link UpstreamRpcError}. */
const UpstreamRpcErrorCode = { UPSTREAM_ERROR: "RPC_UPSTREAM_ERROR" } as const;
/** A {@link UpstreamRpcError}'s code with its metadata. */
type UpstreamRpcErrorType = { code: typeof UpstreamRpcErrorCode.UPSTREAM_ERROR; method: string; rpcCode: number; data?: unknown };

/**
 * The remote node answered with a JSON-RPC error. Carries the upstream JSON-RPC code
 * (`rpcCode`), message and `data`, which the RPC boundary passes through unchanged.
 */
export class UpstreamRpcError extends TypedError<UpstreamRpcErrorType> {
  constructor(
    readonly method: string,
    upstreamCode: number,
    upstreamMessage: string,
    data?: unknown,
  ) {
    super({ code: UpstreamRpcErrorCode.UPSTREAM_ERROR, ...(data === undefined ? { method, rpcCode: upstreamCode } : { method, rpcCode: upstreamCode, data }) }, upstreamMessage);
  }
  /** The upstream JSON-RPC error code. */
  get rpcCode(): number {
    return this.type.rpcCode;
  }
  /** The upstream error's `data`, if any. */
  get data(): unknown {
    return this.type.data;
  }
}

/** What every transport offers: one call at a time (callers may have many in flight). */
export interface JsonRpcClient {
  /** The endpoint without credentials (scheme, host and port), for messages and logs. */
  readonly endpoint: string;
  /** Calls `method`; resolves with `result`, rejects with {@link RpcClientError} / {@link UpstreamRpcError}. */
  call<T = unknown>(method: string, params?: unknown[], timeoutMs?: number): Promise<T>;
  /** Releases connections; pending calls reject. */
  close(): void;
}

/** Options of the clients. */
interface RpcClientOptions {
  /** Per-request timeout; default {@link RPC_CLIENT_TIMEOUT_MS}. */
  timeoutMs?: number;
  logger?: Logger;
}

/**
 * The endpoint as safe to show: scheme, host and port only. Provider URLs often carry an API
 * key in the path or query, which must not reach logs or callers' error messages.
 */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return "<invalid url>";
  }
}

/** Whether `url` is a WebSocket URL (ws:// or wss://). */
export function isWebSocketUrl(url: string): boolean {
  return /^wss?:\/\//i.test(url);
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function excerpt(text: string): string {
  return text.length > RPC_CLIENT_BODY_EXCERPT_CHARS ? `${text.slice(0, RPC_CLIENT_BODY_EXCERPT_CHARS)}…` : text;
}

/** Reads `result` or the error out of a parsed JSON-RPC response object. */
function settle(endpoint: string, method: string, body: unknown): unknown {
  if (!isObject(body)) {
    throw new RpcClientError({ code: RpcClientErrorCode.INVALID_RESPONSE, endpoint, method }, `${endpoint}: ${method}: expected a JSON-RPC response object`);
  }
  const err = body.error;
  if (err !== undefined && err !== null) {
    if (!isObject(err) || typeof err.code !== "number" || typeof err.message !== "string") {
      const what = `${endpoint}: ${method}: malformed error object ${excerpt(JSON.stringify(err))}`;
      throw new RpcClientError({ code: RpcClientErrorCode.INVALID_RESPONSE, endpoint, method }, what);
    }
    throw new UpstreamRpcError(method, err.code, err.message, err.data);
  }
  if (!("result" in body)) {
    throw new RpcClientError({ code: RpcClientErrorCode.INVALID_RESPONSE, endpoint, method }, `${endpoint}: ${method}: response has neither result nor error`);
  }
  return body.result;
}

/** JSON-RPC over HTTP(S): one POST per call, through the global `fetch`. */
export class HttpRpcClient implements JsonRpcClient {
  readonly endpoint: string;
  private nextId = 1;
  private readonly timeoutMs: number;
  private readonly controllers = new Set<AbortController>();

  constructor(
    private readonly url: string,
    opts: RpcClientOptions = {},
  ) {
    this.endpoint = redactUrl(url);
    this.timeoutMs = opts.timeoutMs ?? RPC_CLIENT_TIMEOUT_MS;
  }

  async call<T = unknown>(method: string, params: unknown[] = [], timeoutMs = this.timeoutMs): Promise<T> {
    const meta = { endpoint: this.endpoint, method };
    const controller = new AbortController();
    this.controllers.add(controller);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    let status: number;
    let text: string;
    try {
      const res = await fetch(this.url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: this.nextId++, method, params }),
        signal: controller.signal,
      });
      status = res.status;
      text = await res.text();
    } catch (e) {
      if (timedOut) throw new RpcClientError({ code: RpcClientErrorCode.TIMEOUT, ...meta }, `${this.endpoint}: ${method} timed out after ${timeoutMs} ms`);
      const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
      throw new RpcClientError({ code: RpcClientErrorCode.TRANSPORT, ...meta }, `${this.endpoint}: ${method} failed: ${(e as Error).message}${cause}`, { cause: e });
    } finally {
      clearTimeout(timer);
      this.controllers.delete(controller);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      if (status < 200 || status >= 300) throw new RpcClientError({ code: RpcClientErrorCode.TRANSPORT, ...meta }, `${this.endpoint}: ${method}: HTTP ${status}`);
      throw new RpcClientError({ code: RpcClientErrorCode.INVALID_RESPONSE, ...meta }, `${this.endpoint}: ${method}: body is not JSON: ${excerpt(text)}`);
    }
    return settle(this.endpoint, method, body) as T;
  }

  close(): void {
    for (const c of this.controllers) c.abort();
    this.controllers.clear();
  }
}

/** A call waiting for its answer on a WebSocket. */
interface PendingCall {
  method: string;
  resolve(v: unknown): void;
  reject(e: unknown): void;
  timer: NodeJS.Timeout;
}

/** Listener of one subscription's notifications (`params.result` of `eth_subscription`). */
type SubscriptionListener = (result: unknown) => void;

/**
 * JSON-RPC over one WebSocket, reconnecting with exponential backoff when the socket drops.
 * Calls made while disconnected fail at once with a TRANSPORT error (callers retry). Because a
 * subscription does not survive a reconnect, `onOpen` listeners run after every (re)connect:
 * that is where callers subscribe.
 */
export class WsRpcClient implements JsonRpcClient {
  readonly endpoint: string;
  private readonly timeoutMs: number;
  private readonly log: Logger | undefined;
  private socket: WebSocket | undefined;
  private open = false;
  private closed = false;
  private nextId = 1;
  private readonly pending = new Map<number, PendingCall>();
  private readonly subscriptions = new Map<string, SubscriptionListener>();
  private readonly openListeners: (() => void)[] = [];
  /** Resolvers of {@link waitOpen} calls: true on open, false on {@link close}. */
  private readonly openWaiters = new Set<(open: boolean) => void>();
  private reconnectDelay = RPC_CLIENT_WS_RECONNECT_INITIAL_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private warnedDown = false;

  constructor(
    private readonly url: string,
    opts: RpcClientOptions = {},
  ) {
    this.endpoint = redactUrl(url);
    this.timeoutMs = opts.timeoutMs ?? RPC_CLIENT_TIMEOUT_MS;
    this.log = opts.logger;
  }

  /** Whether the socket is open now. */
  get connected(): boolean {
    return this.open;
  }

  /** Runs `l` after every successful (re)connect. */
  onOpen(l: () => void): void {
    this.openListeners.push(l);
  }

  /** Resolves true once the socket is open (at once if it is), false after `timeoutMs` or on {@link close}. */
  waitOpen(timeoutMs: number): Promise<boolean> {
    if (this.open) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return new Promise((resolve) => {
      const settle = (open: boolean): void => {
        clearTimeout(timer);
        this.openWaiters.delete(settle);
        resolve(open);
      };
      const timer = setTimeout(() => settle(false), timeoutMs);
      this.openWaiters.add(settle);
    });
  }

  /** Opens the socket (and keeps reopening it until {@link close}). Idempotent. */
  connect(): void {
    if (this.closed || this.socket !== undefined) return;
    const ws = new WebSocket(this.url, { handshakeTimeout: this.timeoutMs });
    this.socket = ws;
    ws.on("open", () => {
      this.open = true;
      this.reconnectDelay = RPC_CLIENT_WS_RECONNECT_INITIAL_MS;
      if (this.warnedDown) this.log?.info({ endpoint: this.endpoint }, "WebSocket RPC reconnected");
      this.warnedDown = false;
      for (const l of this.openListeners) l();
      for (const w of [...this.openWaiters]) w(true);
    });
    ws.on("message", (data) => this.onMessage(String(data)));
    ws.on("error", (e) => this.log?.debug({ endpoint: this.endpoint, err: e }, "WebSocket RPC error"));
    ws.on("close", () => this.onClose(ws));
  }

  private onClose(ws: WebSocket): void {
    if (this.socket !== ws) return;
    const wasOpen = this.open;
    this.socket = undefined;
    this.open = false;
    this.subscriptions.clear();
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      const meta = { endpoint: this.endpoint, method: p.method };
      p.reject(new RpcClientError({ code: RpcClientErrorCode.TRANSPORT, ...meta }, `${this.endpoint}: ${p.method}: WebSocket closed`));
      this.pending.delete(id);
    }
    if (this.closed) return;
    if (!this.warnedDown) {
      const msg = wasOpen ? "WebSocket RPC dropped; reconnecting" : "WebSocket RPC unreachable; retrying";
      this.log?.warn({ endpoint: this.endpoint, retryMs: this.reconnectDelay }, msg);
      this.warnedDown = true;
    } else this.log?.debug({ endpoint: this.endpoint, retryMs: this.reconnectDelay }, "WebSocket RPC reconnect attempt failed");
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect();
    }, this.reconnectDelay);
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RPC_CLIENT_WS_RECONNECT_MAX_MS);
  }

  private onMessage(text: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.log?.debug({ endpoint: this.endpoint, body: excerpt(text) }, "WebSocket RPC: ignoring a message that is not JSON");
      return;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) {
      if (!isObject(m)) continue;
      if (m.method === "eth_subscription" && isObject(m.params)) {
        const sub = m.params.subscription;
        if (typeof sub === "string") this.subscriptions.get(sub)?.(m.params.result);
        continue;
      }
      if (typeof m.id !== "number") continue;
      const p = this.pending.get(m.id);
      if (p === undefined) continue;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      try {
        p.resolve(settle(this.endpoint, p.method, m));
      } catch (e) {
        p.reject(e);
      }
    }
  }

  call<T = unknown>(method: string, params: unknown[] = [], timeoutMs = this.timeoutMs): Promise<T> {
    const meta = { endpoint: this.endpoint, method };
    const ws = this.socket;
    if (!this.open || ws === undefined) {
      return Promise.reject(new RpcClientError({ code: RpcClientErrorCode.TRANSPORT, ...meta }, `${this.endpoint}: ${method}: WebSocket not connected`));
    }
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcClientError({ code: RpcClientErrorCode.TIMEOUT, ...meta }, `${this.endpoint}: ${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }), (err) => {
        if (err === undefined || err === null) return;
        clearTimeout(timer);
        this.pending.delete(id);
        reject(new RpcClientError({ code: RpcClientErrorCode.TRANSPORT, ...meta }, `${this.endpoint}: ${method}: send failed: ${err.message}`));
      });
    });
  }

  /**
   * `eth_subscribe(kind, ...params)` on the current connection; `listener` receives each
   * notification's `result`. Resolves with the subscription id. Lost on reconnect (see {@link onOpen}).
   */
  async subscribe(kind: string, listener: SubscriptionListener, params: unknown[] = []): Promise<string> {
    const id = await this.call<unknown>("eth_subscribe", [kind, ...params]);
    if (typeof id !== "string") {
      throw new RpcClientError({ code: RpcClientErrorCode.INVALID_RESPONSE, endpoint: this.endpoint, method: "eth_subscribe" }, `${this.endpoint}: eth_subscribe: expected a subscription id string`);
    }
    this.subscriptions.set(id, listener);
    return id;
  }

  /** Drops the connection for good (no reconnect); pending calls reject. */
  close(): void {
    this.closed = true;
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    for (const w of [...this.openWaiters]) w(false);
    const ws = this.socket;
    if (ws !== undefined) {
      this.onClose(ws);
      ws.removeAllListeners("open");
      ws.on("error", () => undefined);
      ws.terminate();
    }
  }
}

/** A client for `url`: {@link WsRpcClient} (connecting right away) for ws(s)://, else {@link HttpRpcClient}. */
export function createRpcClient(url: string, opts: RpcClientOptions = {}): HttpRpcClient | WsRpcClient {
  if (isWebSocketUrl(url)) {
    const c = new WsRpcClient(url, opts);
    c.connect();
    return c;
  }
  return new HttpRpcClient(url, opts);
}
