/**
 * A client for latency figures of one request at a time: one keep-alive connection of the load
 * generator's own HTTP client ({@link Connection}), a request written as one pre-encoded buffer,
 * the latency taken from the write to the last byte of the answer parsed. Nothing else runs on
 * the path — no `fetch` (undici), whose own cost per request on this 2-core machine is about a
 * millisecond, larger than most answers it would be timing (measured against a bare handler:
 * ~1.1 ms p50 with `fetch`, ~0.07–0.1 ms with this client).
 */
import { Connection, encodeRequest, parseTarget, type HttpTarget, type ParsedResponse } from "./client.js";
import { LoadError } from "./errors.js";

/** One answer: the HTTP status, the body and the latency in milliseconds. */
export interface TimedAnswer {
  status: number;
  body: Buffer;
  ms: number;
}

/** How long one request may take by default: a cold read on a loaded 2-core machine is milliseconds; 30 s means the server is stuck. */
const DEFAULT_TIMEOUT_MS = 30_000;

/** One request in flight. */
interface Waiter {
  sentAt: number;
  resolve(a: TimedAnswer): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

/** One connection, one request at a time; reconnects after the server closes it. */
export class SequentialClient {
  private readonly target: HttpTarget;
  private conn: Connection | undefined;
  private waiter: Waiter | undefined;

  constructor(
    readonly url: string,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {
    this.target = parseTarget(url);
  }

  /**
   * POSTs `body` (a JSON-RPC request) and resolves with the answer and its latency. Rejects with
   * `BENCH_LOAD_REQUEST` on a closed connection or a timeout, and when a request is already in
   * flight (this client times one at a time).
   */
  request(body: string | Buffer): Promise<TimedAnswer> {
    if (this.waiter !== undefined) return Promise.reject(new LoadError("BENCH_LOAD_REQUEST", "a request is already in flight: the sequential client sends one at a time"));
    const bytes = encodeRequest(this.target, body);
    const conn = this.connection();
    return new Promise<TimedAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        this.conn?.destroy("timeout");
        reject(new LoadError("BENCH_LOAD_REQUEST", `no answer from ${this.url} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiter = { sentAt: performance.now(), resolve, reject, timer };
      conn.send(bytes, { bodyIndex: 0, origin: 0, deadline: 0 });
    });
  }

  /** Closes the connection (a request in flight fails). */
  close(): void {
    this.conn?.destroy("closed by the client");
    this.conn = undefined;
  }

  private connection(): Connection {
    if (this.conn?.usable === true) return this.conn;
    const conn = new Connection(this.target, {
      wantBody: () => true,
      onAnswer: (_c, _p, r: ParsedResponse) => this.settle((w) => w.resolve({ status: r.status, body: r.body ?? Buffer.alloc(0), ms: performance.now() - w.sentAt })),
      onClosed: (c, lost, kind) => {
        if (this.conn === c) this.conn = undefined;
        if (lost.length > 0) this.settle((w) => w.reject(new LoadError("BENCH_LOAD_REQUEST", `${this.url}: the connection ended before the answer (${kind})`)));
      },
    });
    this.conn = conn;
    return conn;
  }

  private settle(f: (w: Waiter) => void): void {
    const w = this.waiter;
    if (w === undefined) return;
    this.waiter = undefined;
    clearTimeout(w.timer);
    f(w);
  }
}
