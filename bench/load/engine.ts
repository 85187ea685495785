/**
 * The load engine of one generator thread: its connections to one endpoint, the encoded requests
 * of one corpus, the check of every answer, and the runs (warm-up, open loop, closed loop, the
 * pipelining probe, the capture of an answer) that a thread executes on command. Several engines
 * (one per thread) share a run by taking every `stride`-th request starting at `first`.
 */
import { checkOutcome, prepareCorpus, type PreparedCorpus } from "./check.js";
import { Connection, encodeRequest, parseTarget, type HttpOutcome, type HttpTarget, type ParsedResponse, type Pending } from "./client.js";
import { Tally, type TallyData } from "./stats.js";
import type { Corpus } from "./types.js";

/** Connections of the warm-up pass: enough to open a few sockets without loading the server. */
export const WARMUP_CONCURRENCY = 4;
/** Most timeout checks per timeout (the sweep period is timeout / this, at most {@link MAX_SWEEP_MS}). */
const SWEEPS_PER_TIMEOUT = 8;
/** Longest period between timeout checks: a timed-out request is failed at most this late. */
const MAX_SWEEP_MS = 100;
/** The id prefix of the pipelining probe's requests (answers are matched back by it). */
const PROBE_ID = "pipeline-probe-";

/** What an engine is built from (all structured-cloneable except `corpus.validate`). */
export interface EngineOptions {
  url: string;
  corpus: Corpus;
  /** whole-request timeout, ms (from the scheduled time in open loop, from the send in closed loop) */
  timeoutMs: number;
  /**
   * Answers up to this many bytes are always parsed and checked; of larger ones, one in
   * ceil(size / sampleBytes) is (the first always), the others are checked on status and framing
   * only. `Infinity`: every answer is parsed.
   */
  sampleBytes: number;
  /** this engine's first body (its thread index) */
  first: number;
  /** bodies taken per round (the number of threads) */
  stride: number;
}

/** One thread's share of one run, as plain data. */
export interface ShardResult {
  /** requests written (open loop: those not dropped) */
  sent: number;
  /** open loop: requests due while the in-flight cap was reached */
  dropped: number;
  tally: TallyData;
  /** fraction of the run this thread's event loop was busy (0..1) */
  busy: number;
}

/** What a run does with answers and lost requests. */
export interface RunHandler {
  answered(conn: Connection, pending: Pending, outcome: HttpOutcome): void;
  /** `conn` is gone, with `lost` in flight (possibly none: a server closing an idle connection) */
  lost(conn: Connection, lost: Pending[], kind: string): void;
  /** open loop: fail queued requests past their deadline */
  sweep?(now: number): void;
}

/** The per-thread engine (see the module comment). */
export class Engine {
  readonly prepared: PreparedCorpus;
  readonly target: HttpTarget;
  /** complete request bytes per body */
  readonly requests: Buffer[];
  readonly timeoutMs: number;
  private readonly sampleBytes: number;
  private readonly stride: number;
  private cursor: number;
  private readonly conns = new Set<Connection>();
  private idle: Connection[] = [];
  private handler: RunHandler | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  /** sampling budget of large answers, bytes */
  private credit = 0;
  private firstLarge = true;
  /** keep every body (capture and probe) */
  private keepAll = false;

  constructor(opts: EngineOptions) {
    this.prepared = prepareCorpus(opts.corpus);
    this.target = parseTarget(opts.url);
    this.requests = this.prepared.payloads.map((p) => encodeRequest(this.target, p));
    this.timeoutMs = opts.timeoutMs;
    this.sampleBytes = opts.sampleBytes;
    this.stride = opts.stride;
    this.cursor = opts.first % this.requests.length;
  }

  /** The next body of this thread's round-robin share. */
  nextBody(): number {
    const i = this.cursor;
    this.cursor = (i + this.stride) % this.requests.length;
    return i;
  }

  /** A connection without requests in flight: an idle one, else a new one. */
  take(): Connection {
    return this.takeIdle() ?? this.open();
  }

  /** An idle usable connection, if any (no new one). */
  takeIdle(): Connection | undefined {
    for (let c = this.idle.pop(); c !== undefined; c = this.idle.pop()) if (c.usable && c.inFlight.length === 0) return c;
    return undefined;
  }

  /** A new connection. */
  open(): Connection {
    const conn = new Connection(this.target, {
      wantBody: (status, length) => this.wantBody(status, length),
      onAnswer: (c, pending, r) => this.onAnswer(c, pending, r),
      onClosed: (c, lost, kind) => {
        this.conns.delete(c);
        this.handler?.lost(c, lost, kind);
      },
    });
    this.conns.add(conn);
    return conn;
  }

  /** Puts `conn` back for later runs when it is usable and has nothing in flight. */
  release(conn: Connection): void {
    if (conn.usable && conn.inFlight.length === 0) this.idle.push(conn);
  }

  /** Connections open now. */
  get connections(): number {
    return this.conns.size;
  }

  /** Sends body `bodyIndex` on `conn`, its latency counted from `origin` (ms, performance.now). */
  send(conn: Connection, bodyIndex: number, origin: number): void {
    conn.send(this.requests[bodyIndex]!, { bodyIndex, origin, deadline: origin + this.timeoutMs });
  }

  /** Checks `outcome` of body `bodyIndex` into `tally`, with its latency from `origin`. */
  count(tally: Tally, bodyIndex: number, origin: number, outcome: HttpOutcome): void {
    tally.latency(performance.now() - origin);
    checkOutcome(outcome, this.prepared, bodyIndex, tally);
  }

  /**
   * Runs `body` with `handler` receiving the answers: resets the sampling, checks timeouts
   * periodically, and returns the thread's share (with the event loop's busy fraction).
   */
  async run(handler: RunHandler, body: () => Promise<{ sent: number; dropped: number; tally: Tally }>): Promise<ShardResult> {
    this.handler = handler;
    this.credit = 0;
    this.firstLarge = true;
    const elu = performance.eventLoopUtilization();
    this.sweeper = setInterval(() => this.sweep(), Math.max(1, Math.min(MAX_SWEEP_MS, this.timeoutMs / SWEEPS_PER_TIMEOUT)));
    try {
      const { sent, dropped, tally } = await body();
      return { sent, dropped, tally: tally.toData(), busy: performance.eventLoopUtilization(elu).utilization };
    } finally {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
      this.handler = undefined;
    }
  }

  /**
   * Sends bodies `indices` once each, at most `concurrency` in flight, counting each answer into
   * the returned tally; `each` sees every outcome (`{ error }` for one lost with its connection)
   * and whether it checked ok.
   */
  private async sendEach(indices: number[], concurrency: number, each: (bodyIndex: number, outcome: HttpOutcome, ok: boolean) => void): Promise<ShardResult> {
    const tally = new Tally();
    let next = 0;
    let outstanding = 0;
    let finish: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const settle = (conn: Connection | undefined, bodyIndex: number, origin: number, outcome: HttpOutcome): void => {
      const ok = tally.ok;
      const failed = tally.failed;
      this.count(tally, bodyIndex, origin, outcome);
      each(bodyIndex, outcome, tally.ok > ok && tally.failed === failed);
      outstanding--;
      if (next < indices.length) {
        outstanding++;
        this.send(conn !== undefined && conn.usable ? conn : this.take(), indices[next++]!, performance.now());
      } else if (conn !== undefined) this.release(conn);
      if (outstanding === 0) finish();
    };
    return this.run(
      {
        answered: (conn, p, outcome) => settle(conn, p.bodyIndex, p.origin, outcome),
        lost: (_c, lost, kind) => {
          for (const p of lost) settle(undefined, p.bodyIndex, p.origin, { error: kind });
        },
      },
      async () => {
        for (; outstanding < concurrency && next < indices.length; outstanding++) this.send(this.take(), indices[next++]!, performance.now());
        if (outstanding > 0) await done;
        return { sent: indices.length, dropped: 0, tally };
      },
    );
  }

  /**
   * The warm-up: sends bodies `indices` once each over {@link WARMUP_CONCURRENCY} connections
   * (unmeasured: opens sockets, warms the server); returns the counts and, per body answered and
   * checked ok, its answer size in bytes.
   */
  async warm(indices: number[]): Promise<{ tally: TallyData; sizes: Array<[number, number]> }> {
    const sizes: Array<[number, number]> = [];
    const r = await this.sendEach(indices, WARMUP_CONCURRENCY, (i, o, ok) => {
      if (ok && o.bytes !== undefined) sizes.push([i, o.bytes]);
    });
    return { tally: r.tally, sizes };
  }

  /** Sends body `bodyIndex` once and returns its answer with the body kept, and whether it checked ok. */
  async capture(bodyIndex: number): Promise<{ outcome: HttpOutcome; ok: boolean }> {
    this.keepAll = true;
    try {
      let result: { outcome: HttpOutcome; ok: boolean } = { outcome: { error: "no answer" }, ok: false };
      await this.sendEach([bodyIndex], 1, (_i, outcome, ok) => (result = { outcome, ok }));
      return result;
    } finally {
      this.keepAll = false;
    }
  }

  /**
   * Checks that the server answers `depth` requests written at once on one connection: every
   * answer status 200 and JSON, none missing, and in order. The requests are the corpus's first
   * `depth` bodies (cycled when it has fewer), each with a distinct id, so a server that answers
   * some of them later than it reads the next ones (an execution worker, not a cache) is put to
   * the test; run it before the warm-up, while nothing is cached. A server answering fixed bytes
   * (ids not ours) passes on completeness. Returns undefined when it does, else why not.
   */
  async probePipeline(depth: number): Promise<string | undefined> {
    const payloads = this.prepared.payloads;
    const bodies: string[] = [];
    let single = true;
    for (let k = 0; k < depth; k++) {
      const source = payloads[k % payloads.length]!.toString("utf8");
      let parsed: unknown;
      try {
        parsed = JSON.parse(source);
      } catch {
        return `body ${k % payloads.length} is not JSON`;
      }
      const one = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
      single &&= one;
      bodies.push(one ? JSON.stringify({ ...(parsed as object), id: `${PROBE_ID}${k}` }) : source);
    }
    const answers: HttpOutcome[] = [];
    let failure: string | undefined;
    this.keepAll = true;
    try {
      let finish: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (finish = resolve));
      await this.run(
        {
          answered: (_c, _p, o) => {
            answers.push(o);
            if (answers.length === depth) finish();
          },
          lost: (_c, lost, kind) => {
            failure = `${lost.length} of ${depth} pipelined requests lost (${kind})`;
            finish();
          },
        },
        async () => {
          const conn = this.open();
          const now = performance.now();
          const pending = bodies.map(() => ({ bodyIndex: 0, origin: now, deadline: now + this.timeoutMs }));
          // One write of every request: the server sees them pipelined.
          conn.send(Buffer.concat(bodies.map((b) => encodeRequest(this.target, b))), pending);
          await done;
          if (failure === undefined) this.release(conn);
          else conn.destroy("probe failed");
          return { sent: depth, dropped: 0, tally: new Tally() };
        },
      );
    } finally {
      this.keepAll = false;
    }
    if (failure !== undefined) return failure;
    const ids: unknown[] = [];
    for (const o of answers) {
      if (o.error !== undefined) return `pipelined answer failed: ${o.error}`;
      if (o.status !== 200) return `pipelined answer with status ${o.status}`;
      try {
        const value = JSON.parse((o.body ?? Buffer.alloc(0)).toString("utf8")) as { id?: unknown };
        ids.push(Array.isArray(value) ? undefined : value.id);
      } catch {
        return "pipelined answer is not JSON";
      }
    }
    if (single) {
      const ours = ids.map((id) => (typeof id === "string" && id.startsWith(PROBE_ID) ? Number(id.slice(PROBE_ID.length)) : -1));
      if (ours.some((k) => k >= 0) && ours.some((k, i) => k !== i)) return `pipelined answers out of order (ids ${ours.join(",")})`;
    }
    return undefined;
  }

  /** Ends every connection (requests in flight fail as "closed"). */
  close(): void {
    for (const c of [...this.conns]) c.destroy("closed");
    this.idle = [];
  }

  private sweep(): void {
    const now = performance.now();
    for (const c of [...this.conns]) {
      const head = c.inFlight[0];
      if (head !== undefined && head.deadline <= now) c.destroy("timeout");
    }
    this.handler?.sweep?.(now);
  }

  /** Whether to keep (and so parse) the body of an answer (see {@link EngineOptions.sampleBytes}). */
  private wantBody(status: number, length: number): boolean {
    if (this.keepAll) return true;
    if (status !== 200) return false;
    return length < 0 || this.sample(length);
  }

  /** The sampling decision for an answer of `length` bytes. */
  private sample(length: number): boolean {
    if (length <= this.sampleBytes) return true;
    if (this.firstLarge) {
      this.firstLarge = false;
      return true;
    }
    this.credit = Math.min(length, this.credit + this.sampleBytes);
    if (this.credit < length) return false;
    this.credit = 0;
    return true;
  }

  private onAnswer(conn: Connection, pending: Pending, r: ParsedResponse): void {
    let body = r.body;
    // A chunked answer is kept whole (its size is known only at the end); sample it now.
    if (body !== undefined && !r.sized && !this.keepAll && !this.sample(body.length)) body = undefined;
    this.handler?.answered(conn, pending, body === undefined ? { status: r.status, bytes: r.bytes } : { status: r.status, body, bytes: r.bytes });
  }
}
