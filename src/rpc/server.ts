/**
 * JSON-RPC over HTTP on uWebSockets.js, for the public port ("http") and the authenticated
 * Engine API port ("engine"). HTTP-level answers follow geth: 405 for methods other than
 * POST, 413 for oversized bodies, 415 for a content type other than JSON, 401 for a failed
 * Engine JWT check; everything else is a 200 whose body {@link handleBody} produces.
 */
import uws from "uWebSockets.js";
import { listenExclusive } from "../util/listen.js";
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from "uWebSockets.js";
import type { Logger } from "pino";
import { MAX_REQUEST_BODY_BYTES } from "../config/constants.js";
import { TypedError } from "../util/errors.js";
import { answerBody, SplicedResponse, type ResponseBody } from "./envelope.js";
import { verifyJwt } from "./jwt.js";
import { STATUS_FORBIDDEN, STATUS_TOO_MANY_REQUESTS, STATUS_UNAVAILABLE, type Admission, type PublicPolicy } from "./publicPolicy.js";
import type { MethodTable, RpcContext } from "./types.js";

/** Options of {@link RpcHttpServer}. */
interface RpcHttpServerOptions {
  /** Address to bind, e.g. "127.0.0.1". */
  host: string;
  /** Port to bind; 0 picks a free one (see {@link RpcHttpServer.listen}). */
  port: number;
  /** The methods served. */
  methods: MethodTable;
  /** "engine" requires a valid JWT (then `jwtSecret` is mandatory); "rollup" is the consensus-side port (no auth). */
  transport: "http" | "engine" | "rollup";
  /** Engine API shared secret (32 bytes). */
  jwtSecret?: Uint8Array;
  /** Largest accepted request body (default MAX_REQUEST_BODY_BYTES). */
  maxBodyBytes?: number;
  /** Optional logger; only debug-level per-request lines are written. */
  logger?: Logger;
  /** Allowed CORS origins ("*" for any); unset disables CORS and preflight. */
  cors?: string[];
  /** Public-endpoint mode (`--public`): rate limit, 403 for eth_getBlockReceipts, namespaces off, connection cap. Not for "engine". */
  public?: PublicPolicy;
  /**
   * Plain HTTP GET answers beside JSON-RPC (the rollup port's `GET /health` for load balancers):
   * given the path and query string, a status line and JSON body, or undefined for 405.
   */
  get?: (path: string, query: string) => { status: string; body: string } | undefined;
}

/** A {@link RpcServerError}'s code with its metadata. */
type RpcServerErrorType = { code: "RPC_LISTEN_FAILED" | "RPC_SERVER_CONFIG"; host: string; port: number };

/** The server could not be configured or bound. */
export class RpcServerError extends TypedError<RpcServerErrorType> {
  constructor(code: "RPC_LISTEN_FAILED" | "RPC_SERVER_CONFIG", message: string, host: string, port: number) {
    super({ code, host, port }, message);
  }
}

/** Content types geth accepts for JSON-RPC (parameters such as charset are ignored). */
const ACCEPTED_CONTENT_TYPES = new Set(["application/json", "application/json-rpc", "application/jsonrequest"]);

const STATUS_OK = "200 OK";
const STATUS_NO_CONTENT = "204 No Content";
const STATUS_UNAUTHORIZED = "401 Unauthorized";
const STATUS_METHOD_NOT_ALLOWED = "405 Method Not Allowed";
const STATUS_TOO_LARGE = "413 Request Entity Too Large";
const STATUS_UNSUPPORTED_MEDIA = "415 Unsupported Media Type";
const STATUS_INTERNAL = "500 Internal Server Error";


/** What a request handler captured synchronously from the (stack-allocated) HttpRequest. */
interface RequestState {
  aborted: boolean;
  done: boolean;
  /** Body bytes received so far. */
  size: number;
  /** performance.now() at arrival, for the debug request line (0 when debug lines are off). */
  started: number;
  corsOrigin: string | undefined;
  /** The client's address as text, read on first use (a getpeername call): see {@link RpcHttpServer.remoteOf}. */
  remoteAddress: string | undefined;
  /** Counted against the public connection cap (released once, on the answer or the abort). */
  counted: boolean;
}

/** The context of a call over HTTP: the client's address is read when first asked for. */
class HttpContext implements RpcContext {
  readonly transport: RpcContext["transport"];

  constructor(
    private readonly server: RpcHttpServer,
    private readonly res: HttpResponse,
    private readonly state: RequestState,
  ) {
    this.transport = server.transport;
  }

  get remoteAddress(): string {
    return this.server.remoteOf(this.res, this.state);
  }
}

/** A JSON-RPC HTTP server bound to one address; one instance per port. */
export class RpcHttpServer {
  private readonly app: TemplatedApp;
  private readonly maxBodyBytes: number;
  /** The methods served: `opts.methods`, filtered by the public policy when there is one. */
  private readonly methods: MethodTable;
  private listenSocket: us_listen_socket | null = null;
  /** Requests whose body is being handled (between the last body chunk and the answer); see {@link drain}. */
  private inFlightCount = 0;
  /** Set by {@link stopAccepting}: new requests are answered 503 and their connection closed. */
  private draining = false;
  /** Resolvers of {@link drain} waiting for `inFlightCount` to reach 0. */
  private idleWaiters: (() => void)[] = [];
  /** Every request's address is needed (public mode's per-IP limits); else it is read when asked for (or for a debug request line). */
  private readonly addressAlways: boolean;

  /** Builds the server; nothing is bound until {@link listen}. */
  constructor(private readonly opts: RpcHttpServerOptions) {
    if (opts.transport === "engine" && opts.jwtSecret === undefined) {
      throw new RpcServerError("RPC_SERVER_CONFIG", "the engine transport needs a JWT secret", opts.host, opts.port);
    }
    if (opts.transport === "engine" && opts.public !== undefined) {
      throw new RpcServerError("RPC_SERVER_CONFIG", "the engine transport cannot run in public mode", opts.host, opts.port);
    }
    this.maxBodyBytes = opts.maxBodyBytes ?? MAX_REQUEST_BODY_BYTES;
    this.addressAlways = opts.public !== undefined;
    this.methods = opts.public === undefined ? opts.methods : opts.public.filterMethods(opts.methods);
    this.app = uws.App();
    this.app.any("/*", (res, req) => this.onRequest(res, req));
  }

  /** Binds the address; resolves with the bound port (the real one when `port` was 0). */
  async listen(): Promise<number> {
    const { host, port } = this.opts;
    const bound = await listenExclusive(this.app, host, port, () => new RpcServerError("RPC_LISTEN_FAILED", `cannot listen on ${host}:${port}`, host, port));
    this.listenSocket = bound.socket;
    this.opts.logger?.debug({ host, port: bound.port, transport: this.opts.transport }, "RPC server listening");
    return bound.port;
  }


  /** Which server this is (the calls' `ctx.transport`). */
  get transport(): RpcContext["transport"] {
    return this.opts.transport;
  }

  /** Requests being handled right now (for graceful shutdown and metrics). */
  get inFlight(): number {
    return this.inFlightCount;
  }

  /**
   * Graceful shutdown, step 1: closes the listening socket (no new connections) and answers any
   * new request on an open keep-alive connection with 503, closing that connection. Requests
   * already being handled go on; {@link drain} waits for them.
   */
  stopAccepting(): void {
    this.draining = true;
    if (this.listenSocket !== null) {
      uws.us_listen_socket_close(this.listenSocket);
      this.listenSocket = null;
    }
  }

  /**
   * Graceful shutdown, step 2: resolves once no request is in flight or after `ms`, whichever is
   * first, with the number of requests still in flight (those {@link close} then cuts off).
   */
  drain(ms: number): Promise<number> {
    if (this.inFlightCount === 0) return Promise.resolve(0);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        resolve(this.inFlightCount);
      };
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== done);
        resolve(this.inFlightCount);
      }, ms);
      this.idleWaiters.push(done);
    });
  }

  /** Stops accepting connections and drops open ones (in-flight requests are aborted). */
  close(): void {
    if (this.listenSocket !== null) {
      uws.us_listen_socket_close(this.listenSocket);
      this.listenSocket = null;
    }
    // Present in the native module (closes keep-alive sockets) but missing from the typings.
    (this.app as TemplatedApp & { close?: () => void }).close?.();
  }

  private corsOriginFor(origin: string): string | undefined {
    const allowed = this.opts.cors;
    if (allowed === undefined || allowed.length === 0) return undefined;
    if (allowed.includes("*")) return "*";
    const lower = origin.toLowerCase();
    return origin !== "" && allowed.some((o) => o.toLowerCase() === lower) ? origin : undefined;
  }

  /**
   * Route handler. A throw escaping a uWS handler terminates the process, so any bug below is
   * caught here and answered with a 500.
   */
  private onRequest(res: HttpResponse, req: HttpRequest): void {
    const state: RequestState = {
      aborted: false,
      done: false,
      size: 0,
      started: this.debugLines() ? performance.now() : 0,
      corsOrigin: undefined,
      remoteAddress: undefined,
      counted: false,
    };
    try {
      this.route(res, req, state);
    } catch (err) {
      this.fail(res, state, err);
    }
  }

  private fail(res: HttpResponse, state: RequestState, err: unknown): void {
    this.opts.logger?.error({ err }, "RPC HTTP handler failed");
    this.respond(res, state, STATUS_INTERNAL, "internal error", "text/plain", false, true);
  }

  private route(res: HttpResponse, req: HttpRequest, state: RequestState): void {
    // Everything needed from `req` is read now: it is invalid after the first await.
    if (this.opts.cors !== undefined) state.corsOrigin = this.corsOriginFor(req.getHeader("origin"));
    if (this.addressAlways || state.started !== 0) this.remoteOf(res, state);
    const method = req.getMethod();
    if (this.draining) {
      this.respond(res, state, STATUS_UNAVAILABLE, "shutting down", "text/plain", false, true);
      return;
    }
    if (this.opts.public !== undefined) {
      if (!this.opts.public.tryAcquire()) {
        const message = `too many connections: at most ${this.opts.public.maxConnections}; retry later`;
        const body = `{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":${JSON.stringify(message)}}}`;
        this.respond(res, state, STATUS_UNAVAILABLE, body, "application/json", false, true, { "retry-after": "1" });
        return;
      }
      state.counted = true;
    }

    if (method === "options" && this.opts.cors !== undefined) {
      this.respond(res, state, STATUS_NO_CONTENT, null, undefined, true);
      return;
    }
    if (method === "get" && this.opts.get !== undefined) {
      const answer = this.opts.get(req.getUrl(), req.getQuery() ?? "");
      if (answer !== undefined) {
        this.respond(res, state, answer.status, answer.body, "application/json");
        return;
      }
    }
    if (method !== "post") {
      this.respond(res, state, STATUS_METHOD_NOT_ALLOWED, "method not allowed", "text/plain");
      return;
    }
    if (this.opts.transport === "engine") {
      try {
        verifyJwt(req.getHeader("authorization"), this.opts.jwtSecret as Uint8Array);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        const body = `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":${JSON.stringify(message)}}}`;
        this.respond(res, state, STATUS_UNAUTHORIZED, body, "application/json");
        return;
      }
    }
    const contentType = req.getHeader("content-type");
    // The usual header as is; anything else normalized (parameters dropped, case folded).
    if (contentType !== "application/json" && !ACCEPTED_CONTENT_TYPES.has((contentType.split(";")[0] ?? "").trim().toLowerCase())) {
      this.respond(res, state, STATUS_UNSUPPORTED_MEDIA, "invalid content type, only application/json is supported", "text/plain");
      return;
    }
    const declared = req.getHeader("content-length");
    if (declared !== "" && Number(declared) > this.maxBodyBytes) {
      this.respondTooLarge(res, state, Number(declared));
      return;
    }

    res.onAborted(() => {
      state.aborted = true;
      this.release(state);
    });
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      try {
        this.onChunk(res, state, chunks, chunk, isLast);
      } catch (err) {
        this.fail(res, state, err);
      }
    });
  }

  /** Accumulates one body chunk; on the last one, hands the whole body to the envelope. */
  private onChunk(res: HttpResponse, state: RequestState, chunks: Buffer[], chunk: ArrayBuffer, isLast: boolean): void {
    if (state.done || state.aborted) return;
    state.size += chunk.byteLength;
    if (state.size > this.maxBodyBytes) {
      chunks.length = 0;
      this.respondTooLarge(res, state, state.size);
      return;
    }
    if (!isLast) {
      chunks.push(Buffer.from(new Uint8Array(chunk))); // copy: uWS neuters `chunk` on return
      return;
    }
    // The last chunk is only valid during this callback: decode to a string right away.
    const last = Buffer.from(chunk);
    const text = chunks.length === 0 ? last.toString("utf8") : Buffer.concat([...chunks, last]).toString("utf8");
    chunks.length = 0;
    this.process(res, state, text);
  }

  /**
   * Answers a whole body: at once when every handler it calls returns a plain value (cached
   * answers), else when the envelope's promise settles.
   */
  private process(res: HttpResponse, state: RequestState, text: string): void {
    const ctx = new HttpContext(this, res, state);
    const verdict = this.opts.public?.admit(this.remoteOf(res, state), text, "http");
    if (verdict !== undefined && verdict.kind !== "ok") {
      this.refuse(res, state, verdict);
      return;
    }
    this.inFlightCount++;
    let out: ResponseBody | null | Promise<ResponseBody | null>;
    try {
      out = answerBody(text, this.methods, ctx);
    } catch (err) {
      this.settle();
      this.envelopeFailed(res, state, err);
      return;
    }
    if (!(out instanceof Promise)) {
      this.settle();
      this.answer(res, state, out);
      return;
    }
    out.then(
      (o) => {
        this.settle();
        this.answer(res, state, o);
      },
      (err: unknown) => {
        this.settle();
        this.envelopeFailed(res, state, err);
      },
    ).catch((err: unknown) => this.fail(res, state, err));
  }

  /** Writes the envelope's answer: a 200 with the body (empty for notifications). */
  private answer(res: HttpResponse, state: RequestState, out: ResponseBody | null): void {
    if (out instanceof SplicedResponse) this.respondSpliced(res, state, out);
    else this.respond(res, state, STATUS_OK, out ?? "", "application/json");
  }

  /** The envelope maps handler errors itself; reaching here is a bug in it. */
  private envelopeFailed(res: HttpResponse, state: RequestState, err: unknown): void {
    this.opts.logger?.error({ err }, "RPC envelope failed");
    this.respond(res, state, STATUS_INTERNAL, "internal error", "text/plain");
  }

  /**
   * The client's address as text. Read from the connection (a getpeername system call) the first
   * time it is asked for while the request is open — handlers reading `ctx.remoteAddress`
   * during the call — and kept; "" when first asked after the answer or the abort.
   */
  remoteOf(res: HttpResponse, state: RequestState): string {
    if (state.remoteAddress === undefined && !state.done && !state.aborted) {
      state.remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString();
    }
    return state.remoteAddress ?? "";
  }

  /** One in-flight request finished: wakes {@link drain} waiters when none is left. */
  private settle(): void {
    this.inFlightCount--;
    if (this.inFlightCount > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Public mode: 429 (with Retry-After) for a rate-limited client, 403 for a refused method. */
  private refuse(res: HttpResponse, state: RequestState, verdict: Exclude<Admission, { kind: "ok" }>): void {
    if (verdict.kind === "limited") {
      const headers = { "retry-after": String(verdict.retryAfterS) };
      this.respond(res, state, STATUS_TOO_MANY_REQUESTS, verdict.body, "application/json", false, false, headers);
    } else {
      this.respond(res, state, STATUS_FORBIDDEN, verdict.body, "application/json");
    }
  }

  /** Gives back the public connection slot of a request (once). */
  private release(state: RequestState): void {
    if (!state.counted) return;
    state.counted = false;
    this.opts.public?.release();
  }

  private respondTooLarge(res: HttpResponse, state: RequestState, size: number): void {
    // Close the connection: the rest of the body is not worth reading (geth does the same).
    this.respond(res, state, STATUS_TOO_LARGE, `content length too large (${size}>${this.maxBodyBytes})`, "text/plain", false, true);
  }

  /** Writes a complete response once, corked, unless the client went away. */
  private respond(
    res: HttpResponse,
    state: RequestState,
    status: string,
    body: string | null,
    contentType: string | undefined,
    preflight = false,
    closeConnection = false,
    headers: Record<string, string> = {},
  ): void {
    if (state.aborted || state.done) return;
    state.done = true;
    this.release(state);
    res.cork(() => {
      this.writeHead(res, state, status, contentType, headers, preflight);
      // endWithoutBody() without arguments: passing `undefined` leaves the response unended.
      if (body === null) res.endWithoutBody();
      else res.end(body, closeConnection);
    });
    this.logAnswer(state, status, body === null ? 0 : body.length);
  }

  /**
   * Writes a 200 whose body is `out.head` then `out.tail` (a cached result's bytes), corked,
   * unless the client went away: the same bytes on the wire as {@link respond} with the joined
   * text (Content-Length, no chunked encoding), without joining, copying or converting the
   * tail. What the socket does not take at once is written when it drains (onWritable).
   */
  private respondSpliced(res: HttpResponse, state: RequestState, out: SplicedResponse): void {
    if (state.aborted || state.done) return;
    state.done = true;
    this.release(state);
    const head = out.head;
    const headBytes = Buffer.byteLength(head, "utf8");
    const tail = out.tail;
    const total = headBytes + tail.length;
    /** Writes from body offset `offset` on; false when the socket took only part of it. */
    const writeFrom = (offset: number): boolean => {
      if (offset < headBytes) {
        // The head as text (uWS encodes it) unless resuming inside it, which needs its bytes.
        const [ok, done] = res.tryEnd(offset === 0 ? head : Buffer.from(head, "utf8").subarray(offset), total);
        if (!ok || done) return ok;
        offset = headBytes;
      }
      return res.tryEnd(offset === headBytes ? tail : tail.subarray(offset - headBytes), total)[0];
    };
    res.cork(() => {
      this.writeHead(res, state, STATUS_OK, "application/json", {}, false);
      if (!writeFrom(0)) res.onWritable((offset) => state.aborted || writeFrom(offset));
    });
    this.logAnswer(state, STATUS_OK, total);
  }

  /** Status line and headers of an answer: content type, `headers`, CORS (with the preflight's when `preflight`). */
  private writeHead(
    res: HttpResponse,
    state: RequestState,
    status: string,
    contentType: string | undefined,
    headers: Record<string, string>,
    preflight: boolean,
  ): void {
    // uWS writes "200 OK" itself before the first header: one native call less on the usual answer.
    if (status !== STATUS_OK) res.writeStatus(status);
    if (contentType !== undefined) res.writeHeader("content-type", contentType);
    const extra = Object.keys(headers);
    for (const name of extra) res.writeHeader(name, headers[name] as string);
    if (state.corsOrigin !== undefined) {
      res.writeHeader("access-control-allow-origin", state.corsOrigin);
      // Lets browser code read e.g. Retry-After on a 429.
      if (extra.length > 0) res.writeHeader("access-control-expose-headers", extra.join(", "));
      if (state.corsOrigin !== "*") res.writeHeader("vary", "Origin");
      if (preflight) {
        res.writeHeader("access-control-allow-methods", "POST, OPTIONS");
        res.writeHeader("access-control-allow-headers", "content-type, authorization");
        res.writeHeader("access-control-max-age", "600");
      }
    }
  }

  /** Whether per-request debug lines are written (the logger's level can change at run time). */
  private debugLines(): boolean {
    return this.opts.logger?.isLevelEnabled("debug") === true;
  }

  /** The debug line of one answered request (built only when it is written). */
  private logAnswer(state: RequestState, status: string, bytes: number): void {
    if (state.started === 0 || !this.debugLines()) return;
    this.opts.logger?.debug(
      {
        status: Number.parseInt(status, 10),
        bytes,
        ms: Math.round((performance.now() - state.started) * 1000) / 1000,
        remote: state.remoteAddress ?? "",
        transport: this.opts.transport,
      },
      "RPC HTTP request",
    );
  }
}
