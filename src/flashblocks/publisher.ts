/**
 * The devnet's flashblocks stream: a WebSocket server (uWebSockets.js) that sends every
 * flashblock the sequencer publishes to each subscriber, the way Base's public endpoint
 * (`wss://mainnet.flashblocks.base.org/ws`, base/base `bin/websocket-proxy`) does.
 *
 * - Subscribers connect at `/` or `/ws` (other paths: 404; a plain HTTP request there: 426).
 * - Frame format per connection: `?format=brotli` (binary frames of brotli-compressed JSON, as
 *   Base's public stream) or `?format=text` (text frames of the JSON), else the server default.
 *   Each flashblock is encoded at most once per format, however many subscribers take it.
 * - Slow subscribers are disconnected, as the websocket-proxy does after a send blocked for
 *   1000 ms: one whose send buffer exceeds {@link MAX_SUBSCRIBER_BUFFERED_BYTES}, or whose buffer
 *   made no progress for {@link SLOW_SUBSCRIBER_TIMEOUT_MS} (checked when a frame is published).
 * - Pings from subscribers are answered (uWS does it); idle connections are pinged.
 *
 * Subscribers' messages are ignored. See /work/shared/reference/flashblocks.md §1.5.
 */
import uws from "uWebSockets.js";
import { listenExclusive } from "../util/listen.js";
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, us_socket_context_t, WebSocket } from "uWebSockets.js";
import type { Logger } from "pino";
import type { FlashblocksFormat } from "../config/options.js";
import { TypedError } from "../util/errors.js";
import { encodeFlashblock, type FlashblocksPayloadV1 } from "./codec.js";
import {
  flashblocksPublishBytesTotal,
  flashblocksPublishedTotal,
  flashblocksSlowSubscriberDisconnectsTotal,
  flashblocksSubscribers,
} from "./metrics.js";
import { SLOW_SUBSCRIBER_TIMEOUT_MS, MAX_SUBSCRIBER_BUFFERED_BYTES, FLASHBLOCKS_MAX_INBOUND_MESSAGE_BYTES, FLASHBLOCKS_SUBSCRIBER_IDLE_TIMEOUT_S } from "./constants.js";

/** `WebSocket.send` result: the message was not sent because the backpressure limit was reached. */
const SEND_DROPPED = 2;
/** `WebSocket.send` result: the message was buffered (backpressure built up). */
const SEND_BACKPRESSURE = 0;
/** WebSocket close code 1001 "going away" (RFC 6455 §7.4.1), sent on shutdown. */
const CLOSE_GOING_AWAY = 1001;
/** Paths subscribers connect at: `/` (rollup-boost's local stream) and `/ws` (Base's public endpoint). */
const SUBSCRIBE_PATHS = new Set(["/", "/ws"]);

/** Options of {@link FlashblocksPublisher}. */
export interface FlashblocksPublisherOptions {
  /** Address to bind, e.g. "127.0.0.1". */
  host: string;
  /** Port to bind; 0 picks a free one (see {@link FlashblocksPublisher.listen}). */
  port: number;
  /** Frame format of a subscriber that does not ask for one with `?format=`. */
  format: FlashblocksFormat;
  /** Optional logger; per-connection lines are written at debug. */
  logger?: Logger;
  /** Send-buffer bound per subscriber (default {@link MAX_SUBSCRIBER_BUFFERED_BYTES}). */
  maxBufferedBytes?: number;
  /** No-progress bound per subscriber in ms (default {@link SLOW_SUBSCRIBER_TIMEOUT_MS}). */
  slowSubscriberTimeoutMs?: number;
}

/** Stable code of {@link FlashblocksPublisherError}. */
const FlashblocksPublisherErrorCode = { LISTEN_FAILED: "FLASHBLOCKS_LISTEN_FAILED" } as const;
/** A {@link FlashblocksPublisherError}'s code with its metadata. */
type FlashblocksPublisherErrorType = { code: typeof FlashblocksPublisherErrorCode.LISTEN_FAILED; host: string; port: number };

/** The server could not be bound. */
export class FlashblocksPublisherError extends TypedError<FlashblocksPublisherErrorType> {
  constructor(message: string, host: string, port: number) {
    super({ code: FlashblocksPublisherErrorCode.LISTEN_FAILED, host, port }, message);
  }
}

/** Per-connection state. */
interface Subscriber {
  format: FlashblocksFormat;
  remote: string;
  /** performance.now() since which the send buffer made no progress; undefined when empty. */
  blockedSince: number | undefined;
}

function isFormat(v: string): v is FlashblocksFormat {
  return v === "brotli" || v === "text";
}

/** The flashblocks WebSocket server of the devnet; `publish` fans a flashblock out to every subscriber. */
export class FlashblocksPublisher {
  private readonly app: TemplatedApp;
  private listenSocket: us_listen_socket | null = null;
  private readonly subscribers = new Set<WebSocket<Subscriber>>();
  private readonly maxBuffered: number;
  private readonly slowTimeoutMs: number;
  private boundPort: number | undefined;
  private closed = false;

  private readonly log: Logger | undefined;

  /** Builds the server; nothing is bound until {@link listen}. */
  constructor(private readonly opts: FlashblocksPublisherOptions) {
    this.log = opts.logger?.child({ subsystem: "flashblocks" });
    this.maxBuffered = opts.maxBufferedBytes ?? MAX_SUBSCRIBER_BUFFERED_BYTES;
    this.slowTimeoutMs = opts.slowSubscriberTimeoutMs ?? SLOW_SUBSCRIBER_TIMEOUT_MS;
    this.app = uws.App();
    this.app.ws<Subscriber>("/*", {
      compression: uws.DISABLED,
      maxPayloadLength: FLASHBLOCKS_MAX_INBOUND_MESSAGE_BYTES,
      maxBackpressure: this.maxBuffered,
      idleTimeout: FLASHBLOCKS_SUBSCRIBER_IDLE_TIMEOUT_S,
      sendPingsAutomatically: true,
      upgrade: (res, req, context) => this.onUpgrade(res, req, context),
      open: (ws) => this.onOpen(ws),
      drain: (ws) => this.onDrain(ws),
      close: (ws) => this.onClose(ws),
    });
    this.app.any("/*", (res, req) => {
      const known = SUBSCRIBE_PATHS.has(req.getUrl());
      res.writeStatus(known ? "426 Upgrade Required" : "404 Not Found").end(known ? "websocket upgrade required" : "not found");
    });
  }

  /** Binds the address; resolves with the bound port (the real one when `port` was 0). */
  async listen(): Promise<number> {
    const { host, port } = this.opts;
    const bound = await listenExclusive(this.app, host, port, () => new FlashblocksPublisherError(`cannot listen for flashblocks subscribers on ${host}:${port}`, host, port));
    this.listenSocket = bound.socket;
    this.boundPort = bound.port;
    this.log?.debug({ host, port: bound.port }, "flashblocks publisher listening");
    return bound.port;
  }

  /** The subscribe URL (`ws://host:port/ws`) once listening. */
  get url(): string | undefined {
    return this.boundPort === undefined ? undefined : `ws://${this.opts.host}:${this.boundPort}/ws`;
  }

  /** Subscribers currently connected. */
  get subscriberCount(): number {
    return this.subscribers.size;
  }

  private onUpgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t): void {
    const path = req.getUrl();
    if (!SUBSCRIBE_PATHS.has(path)) {
      res.writeStatus("404 Not Found").end("not found");
      return;
    }
    const asked = (req.getQuery("format") as string | undefined) ?? "";
    if (asked !== "" && !isFormat(asked)) {
      res.writeStatus("400 Bad Request").end(`unknown format ${JSON.stringify(asked.slice(0, 32))}: expected "brotli" or "text"`);
      return;
    }
    const data: Subscriber = {
      format: asked === "" ? this.opts.format : asked,
      remote: Buffer.from(res.getRemoteAddressAsText()).toString(),
      blockedSince: undefined,
    };
    const key = req.getHeader("sec-websocket-key");
    res.upgrade(data, key, req.getHeader("sec-websocket-protocol"), req.getHeader("sec-websocket-extensions"), context);
  }

  private onOpen(ws: WebSocket<Subscriber>): void {
    if (this.closed) {
      ws.end(CLOSE_GOING_AWAY, "server shutting down");
      return;
    }
    this.subscribers.add(ws);
    flashblocksSubscribers.inc();
    const d = ws.getUserData();
    this.log?.debug({ remote: d.remote, format: d.format }, "flashblocks subscriber connected");
  }

  private onDrain(ws: WebSocket<Subscriber>): void {
    // Progress: the buffer shrank. Restart the no-progress clock, or clear it once empty.
    ws.getUserData().blockedSince = ws.getBufferedAmount() > 0 ? performance.now() : undefined;
  }

  private onClose(ws: WebSocket<Subscriber>): void {
    if (!this.subscribers.delete(ws)) return;
    flashblocksSubscribers.dec();
    this.log?.debug({ remote: ws.getUserData().remote }, "flashblocks subscriber disconnected");
  }

  private disconnectSlow(ws: WebSocket<Subscriber>, reason: string): void {
    flashblocksSlowSubscriberDisconnectsTotal.inc();
    this.log?.debug({ remote: ws.getUserData().remote, reason }, "disconnecting slow flashblocks subscriber");
    // Forcibly: a close frame would queue behind the data the client is not reading.
    ws.close();
  }

  /**
   * Sends a flashblock to every subscriber in its format (encoded once per format), and
   * disconnects subscribers that cannot keep up. Never throws.
   */
  publish(p: FlashblocksPayloadV1): void {
    flashblocksPublishedTotal.inc();
    if (this.closed || this.subscribers.size === 0) return;
    const frames: Partial<Record<FlashblocksFormat, { frame: string | Uint8Array; bytes: number }>> = {};
    const now = performance.now();
    for (const ws of [...this.subscribers]) {
      const d = ws.getUserData();
      if (d.blockedSince !== undefined && now - d.blockedSince > this.slowTimeoutMs) {
        this.disconnectSlow(ws, `no progress for ${Math.round(now - d.blockedSince)} ms`);
        continue;
      }
      let encoded = frames[d.format];
      if (encoded === undefined) {
        try {
          const frame = encodeFlashblock(p, { compress: d.format === "brotli" });
          encoded = { frame, bytes: typeof frame === "string" ? Buffer.byteLength(frame, "utf8") : frame.byteLength };
        } catch (e) {
          this.log?.error({ err: e, index: p.index }, "cannot encode flashblock");
          return;
        }
        frames[d.format] = encoded;
      }
      let status = SEND_DROPPED;
      ws.cork(() => {
        status = ws.send(encoded.frame, d.format === "brotli", false);
      });
      if (status === SEND_DROPPED || ws.getBufferedAmount() > this.maxBuffered) {
        this.disconnectSlow(ws, `send buffer over ${this.maxBuffered} bytes`);
        continue;
      }
      flashblocksPublishBytesTotal.inc({ format: d.format }, encoded.bytes);
      if (status === SEND_BACKPRESSURE && d.blockedSince === undefined) d.blockedSince = now;
    }
  }

  /** Disconnects every subscriber (close code 1001) and stops listening. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const ws of [...this.subscribers]) ws.end(CLOSE_GOING_AWAY, "server shutting down");
    if (this.listenSocket !== null) {
      uws.us_listen_socket_close(this.listenSocket);
      this.listenSocket = null;
    }
    // Present in the native module (closes remaining sockets) but missing from the typings.
    (this.app as TemplatedApp & { close?: () => void }).close?.();
  }
}
