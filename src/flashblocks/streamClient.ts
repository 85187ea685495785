/**
 * The flashblocks WebSocket connection, kept alive the way base/base's `subscription.rs` does:
 *
 * - a ping every {@link FLASHBLOCKS_PING_INTERVAL_MS}; a ping still unanswered at the next tick
 *   means a half-open connection (base/base issue #73, PR #77) and the socket is dropped;
 * - a failed connect or a ping timeout reconnects after a backoff of 1 s doubling up to 10 s;
 *   a close frame or a read error reconnects at once; a successful connect resets the backoff
 *   (PR #1038);
 * - frames are handed on as received (text or binary) with their arrival time; decoding and
 *   sequencing happen in the caller.
 */
import WebSocket from "ws";
import { performance } from "node:perf_hooks";
import { FLASHBLOCKS_BACKOFF_INITIAL_MS, FLASHBLOCKS_BACKOFF_MAX_MS, FLASHBLOCKS_PING_INTERVAL_MS, MAX_DECOMPRESSED_FLASHBLOCK_BYTES } from "./constants.js";

/** Why the connection was (re)established or dropped; the label of the reconnect metric. */
export type DisconnectReason = "connect-failed" | "ping-timeout" | "closed" | "error";

/** Callbacks of a {@link FlashblocksStreamClient}. */
interface StreamEvents {
  /** A frame arrived (`receivedAt`: `performance.timeOrigin + performance.now()`, ms). */
  frame(data: Uint8Array | string, receivedAt: number): void;
  /** The connection is up. */
  connected(): void;
  /** The connection went down; a reconnect is scheduled after `retryInMs`. */
  disconnected(reason: DisconnectReason, detail: string, retryInMs: number): void;
}

/** Timing knobs (defaults from constants.ts; tests shorten them). */
export interface StreamClientOptions {
  pingIntervalMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
}

/** Wall-clock milliseconds comparable across the threads of one process. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** A self-healing subscription to a flashblocks WebSocket stream. */
export class FlashblocksStreamClient {
  private ws: WebSocket | undefined;
  private stopped = false;
  private backoff: number;
  private pingTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private awaitingPong = false;
  private readonly pingMs: number;
  private readonly initialMs: number;
  private readonly maxMs: number;

  constructor(
    readonly url: string,
    private readonly events: StreamEvents,
    opts: StreamClientOptions = {},
  ) {
    this.pingMs = opts.pingIntervalMs ?? FLASHBLOCKS_PING_INTERVAL_MS;
    this.initialMs = opts.backoffInitialMs ?? FLASHBLOCKS_BACKOFF_INITIAL_MS;
    this.maxMs = opts.backoffMaxMs ?? FLASHBLOCKS_BACKOFF_MAX_MS;
    this.backoff = this.initialMs;
  }

  /** Whether the socket is open now. */
  get isConnected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  start(): void {
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    this.ws?.terminate();
    this.ws = undefined;
  }

  private connect(): void {
    if (this.stopped) return;
    let opened = false;
    // The compressed frame may be up to the decompressed cap; anything larger is not a flashblock.
    const ws = new WebSocket(this.url, { maxPayload: MAX_DECOMPRESSED_FLASHBLOCK_BYTES, perMessageDeflate: false, handshakeTimeout: this.maxMs });
    this.ws = ws;
    let down = false;
    const drop = (reason: DisconnectReason, detail: string): void => {
      if (down) return;
      down = true;
      clearInterval(this.pingTimer);
      ws.removeAllListeners();
      ws.on("error", () => undefined);
      ws.terminate();
      if (this.ws === ws) this.ws = undefined;
      if (this.stopped) return;
      // A clean close or read error on a working connection retries at once; failures back off.
      const delay = opened && (reason === "closed" || reason === "error") ? 0 : this.backoff;
      if (delay > 0) this.backoff = Math.min(this.backoff * 2, this.maxMs);
      this.events.disconnected(reason, detail, delay);
      this.retryTimer = setTimeout(() => this.connect(), delay);
    };
    ws.on("open", () => {
      opened = true;
      this.backoff = this.initialMs;
      this.awaitingPong = false;
      this.events.connected();
      this.pingTimer = setInterval(() => {
        if (this.awaitingPong) {
          drop("ping-timeout", `no pong within ${this.pingMs} ms`);
          return;
        }
        this.awaitingPong = true;
        try {
          ws.ping();
        } catch (e) {
          drop("error", (e as Error).message);
        }
      }, this.pingMs);
    });
    ws.on("pong", () => {
      this.awaitingPong = false;
    });
    ws.on("message", (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      const at = nowMs();
      const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
      this.events.frame(isBinary ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes.toString("utf8"), at);
    });
    ws.on("close", (code: number, reason: Buffer) => drop(opened ? "closed" : "connect-failed", `close ${code} ${reason.toString()}`.trim()));
    ws.on("error", (e: Error) => drop(opened ? "error" : "connect-failed", e.message));
  }
}
