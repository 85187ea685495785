/**
 * Closed-loop load (the peak run): `concurrency` clients each send their next request as soon
 * as the previous one is answered, for a fixed time, so exactly `concurrency` requests are in
 * flight and the server's saturated throughput is measured. Latency is measured from each send.
 */
import { checkOutcome, nextBody, type PreparedCorpus } from "./check.js";
import type { RpcHttpClient } from "./client.js";
import { LoadError } from "./errors.js";
import { Tally } from "./stats.js";
import type { PeakResult } from "./types.js";

/** Parameters of a closed-loop run. */
export interface ClosedLoopOptions {
  /** clients sending back to back (≥ 1); the client must allow at least this many sockets */
  concurrency: number;
  /** duration, seconds (> 0); requests in flight at the end are awaited and counted */
  seconds: number;
}

/** Runs the closed loop and returns its counts, latencies and `rps` = ok / seconds (without `rssMiB`). */
export async function runClosedLoop(client: RpcHttpClient, prepared: PreparedCorpus, opts: ClosedLoopOptions): Promise<PeakResult> {
  const { concurrency, seconds } = opts;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new LoadError("BENCH_LOAD_PLAN", `peak concurrency ${concurrency} is invalid: expected an integer >= 1`);
  }
  if (!(seconds > 0) || !Number.isFinite(seconds)) {
    throw new LoadError("BENCH_LOAD_PLAN", `peak length ${seconds} s is invalid: expected a positive number of seconds`);
  }
  const tally = new Tally();
  const end = performance.now() + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const bodyIndex = nextBody(prepared);
      const t0 = performance.now();
      const outcome = await client.send(prepared.payloads[bodyIndex] as Buffer);
      tally.latency(performance.now() - t0);
      checkOutcome(outcome, prepared, bodyIndex, tally);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return {
    concurrency,
    seconds,
    ok: tally.ok,
    failed: tally.failed,
    rps: tally.ok / seconds,
    failures: tally.failures,
    ...tally.stats(),
  };
}
