/**
 * JSON-RPC over WebSocket on uWebSockets.js (`--ws`): every text (or UTF-8 binary) message is
 * one request or batch, answered by the same envelope as HTTP ({@link answerBody}), plus
 * eth_subscribe / eth_unsubscribe whose notifications the {@link SubscriptionHub} writes to the
 * connection. Upgrades are accepted on any path (geth serves WebSocket on `/` and any other path).
 */
import uws from "uWebSockets.js";
import { listenExclusive } from "../util/listen.js";
import type { HttpRequest, HttpResponse, TemplatedApp, WebSocket, us_listen_socket, us_socket_context_t } from "uWebSockets.js";
import type { Logger } from "pino";
import { MAX_REQUEST_BODY_BYTES } from "../config/constants.js";
import { WS_MAX_BUFFERED_BYTES, WS_IDLE_TIMEOUT_S } from "./constants.js";
import { answerBody, SplicedResponse, type HandleBodyOptions, type ResponseBody } from "./envelope.js";
import { rpcWsConnections, rpcWsSlowConsumerDisconnectsTotal } from "./metrics.js";
import { RpcServerError } from "./server.js";
import { STATUS_UNAVAILABLE, type PublicPolicy } from "./publicPolicy.js";
import type { SubscriptionConnection, SubscriptionHub } from "./subscriptions.js";
import type { MethodTable, RpcContext } from "./types.js";

/** Close code for a client that reads too slowly: RFC 6455 1008 (policy violation). */
const CLOSE_SLOW_CONSUMER = 1008;
/** Close code for a public-mode client that keeps ignoring the rate limit: RFC 6455 1008 (policy violation). */
const CLOSE_RATE_LIMITED = 1008;
/** Close code on server shutdown: RFC 6455 1001 (going away). */
const CLOSE_GOING_AWAY = 1001;
/** Answer of an envelope failure (a bug): the request is answered rather than left hanging. */
const INTERNAL_ERROR_TEXT = '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}';

/** Options of {@link RpcWsServer}. */
interface RpcWsServerOptions {
  /** Address to bind, e.g. "127.0.0.1". */
  host: string;
  /** Port to bind; 0 picks a free one (see {@link RpcWsServer.listen}). */
  port: number;
  /** The methods served (the public HTTP table); eth_subscribe / eth_unsubscribe come from `hub`. */
  methods: MethodTable;
  /** Subscriptions; without a hub eth_subscribe is answered from `methods` (e.g. "notifications not supported"). */
  hub?: SubscriptionHub;
  /** Largest accepted message; a larger one closes the connection (default MAX_REQUEST_BODY_BYTES, the HTTP body limit). */
  maxMessageBytes?: number;
  /** Unread output above which a connection is closed (default {@link WS_MAX_BUFFERED_BYTES}). */
  maxBufferedBytes?: number;
  /** Idle seconds before a ping, and before closing an unresponsive client (default {@link WS_IDLE_TIMEOUT_S}). */
  idleTimeoutS?: number;
  /** Batch limits passed to the envelope. */
  bodyOptions?: HandleBodyOptions;
  /** Optional logger; per-connection lines are debug. */
  logger?: Logger;
  /** Public-endpoint mode (`--public`): per-message rate limit, namespaces off, connection cap (shared with the HTTP server). */
  public?: PublicPolicy;
}

/** One WebSocket connection. */
class WsConnection implements SubscriptionConnection {
  closed = false;
  /** The connection's method table: the served methods with its own eth_subscribe / eth_unsubscribe. */
  methods: MethodTable;
  /** Public mode: messages rate limited in a row (reset by an admitted one). */
  limitedInARow = 0;

  constructor(
    private readonly server: RpcWsServer,
    readonly ws: WebSocket<ConnectionData>,
    readonly remoteAddress: string,
    base: MethodTable,
    hub: SubscriptionHub | undefined,
  ) {
    this.methods = hub === undefined ? base : { ...base, ...hub.methodsFor(this) };
  }

  send(text: string): boolean {
    return this.server.write(this, text);
  }
}

/** uWS user data of a socket: set at upgrade, the connection at open. */
interface ConnectionData {
  remoteAddress: string;
  conn?: WsConnection;
}

/** A JSON-RPC WebSocket server bound to one address. */
export class RpcWsServer {
  private readonly app: TemplatedApp;
  private readonly maxBufferedBytes: number;
  /** The methods served: `opts.methods`, filtered by the public policy when there is one. */
  private readonly methods: MethodTable;
  private readonly connections = new Set<WsConnection>();
  private listenSocket: us_listen_socket | null = null;
  /** A slow consumer was already logged at warn (later ones go to debug). */
  private slowWarned = false;

  private readonly log: Logger | undefined;

  /** Builds the server; nothing is bound until {@link listen}. */
  constructor(private readonly opts: RpcWsServerOptions) {
    this.log = opts.logger?.child({ subsystem: "rpc" });
    this.maxBufferedBytes = opts.maxBufferedBytes ?? WS_MAX_BUFFERED_BYTES;
    this.methods = opts.public === undefined ? opts.methods : opts.public.filterMethods(opts.methods);
    this.app = uws.App();
    this.app.ws<ConnectionData>("/*", {
      maxPayloadLength: opts.maxMessageBytes ?? MAX_REQUEST_BODY_BYTES,
      idleTimeout: opts.idleTimeoutS ?? WS_IDLE_TIMEOUT_S,
      sendPingsAutomatically: true,
      // No uWS limit (0): write() bounds the unread output itself, and a limit here would also
      // drop the close frame that tells a slow consumer why it is disconnected.
      maxBackpressure: 0,
      upgrade: (res, req, context) => this.onUpgrade(res, req, context),
      open: (ws) => this.onOpen(ws),
      message: (ws, message) => this.onMessage(ws, message),
      close: (ws, code) => this.onClose(ws, code),
    });
    // A plain HTTP request on the WebSocket port (geth's upgrader answers 400 too).
    this.app.any("/*", (res) => {
      res.cork(() => {
        res.writeStatus("400 Bad Request").writeHeader("content-type", "text/plain").end("websocket upgrade expected");
      });
    });
  }

  /** Binds the address; resolves with the bound port (the real one when `port` was 0). */
  async listen(): Promise<number> {
    const { host, port } = this.opts;
    const bound = await listenExclusive(this.app, host, port, () => new RpcServerError("RPC_LISTEN_FAILED", `cannot listen on ${host}:${port} (WebSocket)`, host, port));
    this.listenSocket = bound.socket;
    this.log?.debug({ host, port: bound.port, transport: "ws" }, "RPC server listening");
    return bound.port;
  }

  /** Open connections. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Stops accepting connections and closes the open ones (their subscriptions end). */
  close(): void {
    if (this.listenSocket !== null) {
      uws.us_listen_socket_close(this.listenSocket);
      this.listenSocket = null;
    }
    for (const conn of [...this.connections]) {
      if (!conn.closed) conn.ws.end(CLOSE_GOING_AWAY, "server shutting down");
    }
    // Present in the native module (closes remaining sockets) but missing from the typings.
    (this.app as TemplatedApp & { close?: () => void }).close?.();
  }

  /**
   * Writes one message (a text frame) to a connection. A connection whose unread output already
   * exceeds the bound is closed instead (slow consumer); false then, and when it is closed. The
   * check comes before the write, so one answer of any size (up to the batch response limit)
   * is always queued; only a client that stays behind is dropped.
   */
  write(conn: WsConnection, text: string | Uint8Array): boolean {
    if (conn.closed) return false;
    const buffered = conn.ws.getBufferedAmount();
    if (buffered > this.maxBufferedBytes) {
      this.dropSlowConsumer(conn, buffered);
      return false;
    }
    conn.ws.send(text, false);
    return true;
  }

  private dropSlowConsumer(conn: WsConnection, buffered: number): void {
    rpcWsSlowConsumerDisconnectsTotal.inc();
    const fields = { remote: conn.remoteAddress, buffered, limit: this.maxBufferedBytes };
    if (!this.slowWarned) {
      this.slowWarned = true;
      this.log?.warn(fields, "WebSocket client too slow: connection closed (logged once; later ones at debug)");
    } else {
      this.log?.debug(fields, "WebSocket client too slow: connection closed");
    }
    // end() runs the close handler synchronously: the connection and its subscriptions are gone after this.
    conn.ws.end(CLOSE_SLOW_CONSUMER, `slow consumer: more than ${this.maxBufferedBytes} bytes unread`);
  }

  private onUpgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void {
    if (this.opts.public !== undefined && !this.opts.public.hasCapacity()) {
      res.cork(() => {
        res.writeStatus(STATUS_UNAVAILABLE).writeHeader("retry-after", "1").writeHeader("content-type", "text/plain");
        res.end("too many connections", true);
      });
      return;
    }
    const data: ConnectionData = { remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString() };
    res.upgrade<ConnectionData>(
      data,
      req.getHeader("sec-websocket-key"),
      req.getHeader("sec-websocket-protocol"),
      req.getHeader("sec-websocket-extensions"),
      context,
    );
  }

  private onOpen(ws: WebSocket<ConnectionData>): void {
    const data = ws.getUserData();
    const conn = new WsConnection(this, ws, data.remoteAddress, this.methods, this.opts.hub);
    data.conn = conn;
    this.connections.add(conn);
    this.opts.public?.opened();
    rpcWsConnections.inc();
    this.log?.debug({ remote: conn.remoteAddress }, "WebSocket connection opened");
  }

  private onMessage(ws: WebSocket<ConnectionData>, message: ArrayBuffer): void {
    const conn = ws.getUserData().conn;
    if (conn === undefined || conn.closed) return;
    // The ArrayBuffer is only valid during this callback: decode it now.
    const text = Buffer.from(message).toString("utf8");
    if (this.opts.public !== undefined && !this.admit(conn, this.opts.public, text)) return;
    this.process(conn, text).catch((err: unknown) => this.log?.error({ err }, "RPC WebSocket handler failed"));
  }

  /** Public mode: spends the message's tokens; a refused message is answered -32005, and a connection ignoring that is closed (1008). */
  private admit(conn: WsConnection, policy: PublicPolicy, text: string): boolean {
    const verdict = policy.admit(conn.remoteAddress, text, "ws");
    if (verdict.kind === "ok") {
      conn.limitedInARow = 0;
      return true;
    }
    conn.limitedInARow++;
    if (policy.shouldCloseWs(conn.limitedInARow)) {
      const fields = { remote: conn.remoteAddress, refused: conn.limitedInARow };
      this.log?.debug(fields, "WebSocket client ignores the rate limit: connection closed");
      conn.ws.end(CLOSE_RATE_LIMITED, "rate limit exceeded");
    } else {
      this.write(conn, verdict.body);
    }
    return false;
  }

  private async process(conn: WsConnection, text: string): Promise<void> {
    const ctx: RpcContext = { transport: "ws", remoteAddress: conn.remoteAddress };
    let out: ResponseBody | null;
    try {
      out = await answerBody(text, conn.methods, ctx, this.opts.bodyOptions);
    } catch (err) {
      // The envelope maps handler errors itself; reaching here is a bug in the envelope.
      this.log?.error({ err }, "RPC envelope failed");
      out = INTERNAL_ERROR_TEXT;
    }
    if (conn.closed) return;
    // A cached answer goes out as its bytes (one copy, no string conversion).
    if (out !== null) this.write(conn, out instanceof SplicedResponse ? out.toBuffer() : out);
    // Subscriptions created by this message start notifying only now that their ids are out.
    this.opts.hub?.activate(conn, ctx);
  }

  private onClose(ws: WebSocket<ConnectionData>, code: number): void {
    const conn = ws.getUserData().conn;
    if (conn === undefined) return;
    conn.closed = true;
    this.connections.delete(conn);
    this.opts.hub?.dropConnection(conn);
    this.opts.public?.release();
    rpcWsConnections.dec();
    this.log?.debug({ remote: conn.remoteAddress, code }, "WebSocket connection closed");
  }
}
