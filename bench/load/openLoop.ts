/**
 * Open-loop load: requests are scheduled at a fixed rate whatever the server does, so a slow
 * server meets a growing queue, as under real traffic. A timer wakes when the next request is
 * due and issues every request due by then (a batch per tick, so high rates are met without a
 * timer per request). Latency is measured from each request's scheduled send time, so time a
 * request spent waiting — for the timer, a connection or the server — is counted (no coordinated
 * omission). One request per connection at a time (no pipelining): connections are opened as
 * needed up to a cap, and requests due while all are busy wait for one.
 *
 * Each generator thread runs this for its share of one schedule: request i (0-based) is due at
 * `startAt + i / rate` and thread t of T sends the requests i ≡ t (mod T).
 */
import type { Connection } from "./client.js";
import type { Engine, ShardResult } from "./engine.js";
import { LoadError } from "./errors.js";
import { Tally } from "./stats.js";

/** One thread's part of an open-loop step. */
export interface OpenLoopOptions {
  /** offered rate of the whole step, requests per second (> 0) */
  rate: number;
  /** duration of the schedule, seconds (> 0) */
  seconds: number;
  /** when request 0 is due, ms since the epoch (performance.timeOrigin + performance.now(), comparable across threads) */
  startAt: number;
  /** this thread's first request index and the number of threads */
  first: number;
  stride: number;
  /** this thread's cap of requests in flight; a request due while this many are in flight is dropped (not sent) */
  maxInFlight: number;
  /** this thread's cap of connections */
  maxSockets: number;
}

/** Checks the step's rate and length; throws `BENCH_LOAD_PLAN`. */
export function checkOpenLoop(rate: number, seconds: number): void {
  if (!(rate > 0) || !Number.isFinite(rate)) {
    throw new LoadError("BENCH_LOAD_PLAN", `open-loop rate ${rate} is invalid: expected a positive number of req/s`);
  }
  if (!(seconds > 0) || !Number.isFinite(seconds)) {
    throw new LoadError("BENCH_LOAD_PLAN", `step length ${seconds} s is invalid: expected a positive number of seconds`);
  }
}

/** Requests of a step: `floor(rate × seconds)`, at least one. */
export function openLoopTotal(rate: number, seconds: number): number {
  return Math.max(1, Math.floor(rate * seconds + 1e-9));
}

/**
 * Runs this thread's share of one step, body by body round-robin from the engine, then waits for
 * the stragglers (each bounded by the engine's timeout). The step lasts `seconds` even though its
 * last request is due 1/rate earlier.
 */
export async function runOpenLoop(engine: Engine, o: OpenLoopOptions): Promise<ShardResult> {
  checkOpenLoop(o.rate, o.seconds);
  const total = openLoopTotal(o.rate, o.seconds);
  const intervalMs = 1000 / o.rate;
  const start = o.startAt - performance.timeOrigin;
  const tally = new Tally();
  /** requests due while every connection was busy, oldest first */
  const queue: Array<{ bodyIndex: number; origin: number }> = [];
  let sent = 0;
  let dropped = 0;
  let inFlight = 0;
  let scheduled = false;
  let drained: (() => void) | undefined;

  const settle = (bodyIndex: number, origin: number, outcome: Parameters<Engine["count"]>[3]): void => {
    engine.count(tally, bodyIndex, origin, outcome);
    inFlight--;
    if (inFlight === 0 && scheduled) drained?.();
  };
  /** Gives `conn` (free now) the oldest waiting request, or puts it back. */
  const serve = (conn: Connection): void => {
    const next = queue.shift();
    if (next === undefined) engine.release(conn);
    else engine.send(conn, next.bodyIndex, next.origin);
  };
  const issue = (dueAt: number): void => {
    if (inFlight >= o.maxInFlight) {
      dropped++;
      return;
    }
    inFlight++;
    sent++;
    const bodyIndex = engine.nextBody();
    const conn = engine.takeIdle() ?? (engine.connections < o.maxSockets ? engine.open() : undefined);
    if (conn === undefined) queue.push({ bodyIndex, origin: dueAt });
    else engine.send(conn, bodyIndex, dueAt);
  };

  return engine.run(
    {
      answered: (conn, p, outcome) => {
        settle(p.bodyIndex, p.origin, outcome);
        if (conn.usable) serve(conn);
      },
      lost: (_conn, lost, kind) => {
        for (const p of lost) settle(p.bodyIndex, p.origin, { error: kind });
        while (queue.length > 0 && engine.connections < o.maxSockets) serve(engine.open());
      },
      sweep: (now) => {
        while (queue.length > 0 && queue[0]!.origin + engine.timeoutMs <= now) {
          const p = queue.shift()!;
          settle(p.bodyIndex, p.origin, { error: "timeout" });
        }
      },
    },
    async () => {
      let i = o.first;
      await new Promise<void>((resolve) => {
        const tick = (): void => {
          const now = performance.now();
          for (; i < total && start + i * intervalMs <= now; i += o.stride) issue(start + i * intervalMs);
          if (i >= total) return resolve();
          setTimeout(tick, Math.max(0, start + i * intervalMs - performance.now()));
        };
        tick();
      });
      const rest = start + o.seconds * 1000 - performance.now();
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
      scheduled = true;
      if (inFlight > 0) await new Promise<void>((r) => (drained = r));
      return { sent, dropped, tally };
    },
  );
}
