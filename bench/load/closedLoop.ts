/**
 * Closed-loop load (the peak run): a fixed number of requests in flight — up to `pipeline` on
 * each of ceil(concurrency / pipeline) keep-alive connections, `concurrency` in all — each
 * replaced by the next as soon as it is answered,
 * for a fixed time, so the server's saturated throughput is measured. Latency is measured from
 * each send. A connection the server closes is replaced (its requests in flight fail).
 */
import type { Connection } from "./client.js";
import type { Engine, ShardResult } from "./engine.js";
import { LoadError } from "./errors.js";
import { Tally } from "./stats.js";

/** One thread's part of a closed-loop run. */
export interface ClosedLoopOptions {
  /** requests kept in flight on each of this thread's connections (one entry per connection; > 1 is HTTP/1.1 pipelining) */
  depths: number[];
  /** duration, seconds (> 0); requests in flight at the end are awaited and counted */
  seconds: number;
  /** when sending starts, ms since the epoch (comparable across threads) */
  startAt: number;
}

/** Checks the peak's shape; throws `BENCH_LOAD_PLAN`. */
export function checkClosedLoop(concurrency: number, pipeline: number, seconds: number): void {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new LoadError("BENCH_LOAD_PLAN", `peak concurrency ${concurrency} is invalid: expected an integer >= 1`);
  }
  if (!Number.isInteger(pipeline) || pipeline < 1) {
    throw new LoadError("BENCH_LOAD_PLAN", `pipeline depth ${pipeline} is invalid: expected an integer >= 1`);
  }
  if (!(seconds > 0) || !Number.isFinite(seconds)) {
    throw new LoadError("BENCH_LOAD_PLAN", `peak length ${seconds} s is invalid: expected a positive number of seconds`);
  }
}

/** Runs this thread's connections back to back until `seconds` have passed, then waits for the answers in flight. */
export async function runClosedLoop(engine: Engine, o: ClosedLoopOptions): Promise<ShardResult> {
  const tally = new Tally();
  // Connections are opened before the start, so connecting is not measured.
  const depth = new Map<Connection, number>();
  const conns = o.depths.map((d) => {
    const c = engine.take();
    depth.set(c, d);
    return c;
  });
  const start = o.startAt - performance.timeOrigin;
  const end = start + o.seconds * 1000;
  let sent = 0;
  let inFlight = 0;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));

  const fill = (conn: Connection): void => {
    const now = performance.now();
    const d = depth.get(conn) ?? 1;
    while (conn.usable && conn.inFlight.length < d && now < end) {
      engine.send(conn, engine.nextBody(), now);
      sent++;
      inFlight++;
    }
    if (conn.inFlight.length === 0) engine.release(conn);
  };
  const after = (): void => {
    if (inFlight === 0 && performance.now() >= end) finish();
  };

  return engine.run(
    {
      answered: (conn, p, outcome) => {
        engine.count(tally, p.bodyIndex, p.origin, outcome);
        inFlight--;
        fill(conn);
        after();
      },
      lost: (conn, lost, kind) => {
        for (const p of lost) engine.count(tally, p.bodyIndex, p.origin, { error: kind });
        inFlight -= lost.length;
        // A replacement takes over the lost connection's share.
        const d = depth.get(conn);
        depth.delete(conn);
        if (d !== undefined && performance.now() < end) {
          const replacement = engine.open();
          depth.set(replacement, d);
          fill(replacement);
        }
        after();
      },
    },
    async () => {
      const wait = start - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      for (const c of conns) fill(c);
      const timer = setTimeout(after, Math.max(0, end - performance.now()) + 1);
      await done;
      clearTimeout(timer);
      return { sent, dropped: 0, tally };
    },
  );
}
