/**
 * Open-loop load: requests are scheduled at a fixed rate whatever the server does, so a slow
 * server meets a growing queue, as under real traffic. A timer wakes when the next request is
 * due and issues every request due by then (a batch per tick, so high rates are met without a
 * timer per request). Latency is measured from each request's scheduled send time, so time a
 * request spent waiting — for the timer, a socket or the server — is counted (no coordinated
 * omission).
 */
import { checkOutcome, nextBody, type PreparedCorpus } from "./check.js";
import type { RpcHttpClient } from "./client.js";
import { LoadError } from "./errors.js";
import { Tally } from "./stats.js";
import type { StepResult } from "./types.js";

/** Parameters of one open-loop step. */
export interface OpenLoopOptions {
  /** offered rate, requests per second (> 0) */
  rate: number;
  /** duration of the schedule, seconds (> 0) */
  seconds: number;
  /** requests in flight at most; a request due while this many are in flight is dropped (not sent) */
  maxInFlight: number;
}

/**
 * Runs one step: `floor(rate × seconds)` requests (at least one) scheduled `1/rate` s apart, body
 * by body round-robin from `prepared`, then waits for the stragglers (each bounded by the
 * client's timeout). Returns the step's counts and latencies (without `rssMiB`).
 */
export async function runOpenLoop(client: RpcHttpClient, prepared: PreparedCorpus, opts: OpenLoopOptions): Promise<StepResult> {
  const { rate, seconds, maxInFlight } = opts;
  if (!(rate > 0) || !Number.isFinite(rate)) {
    throw new LoadError("BENCH_LOAD_PLAN", `open-loop rate ${rate} is invalid: expected a positive number of req/s`);
  }
  if (!(seconds > 0) || !Number.isFinite(seconds)) {
    throw new LoadError("BENCH_LOAD_PLAN", `step length ${seconds} s is invalid: expected a positive number of seconds`);
  }
  const total = Math.max(1, Math.floor(rate * seconds + 1e-9));
  const intervalMs = 1000 / rate;
  const tally = new Tally();
  let sent = 0;
  let dropped = 0;
  let inFlight = 0;
  let scheduled = 0;
  let drained: (() => void) | undefined;

  const issue = (dueAt: number): void => {
    if (inFlight >= maxInFlight) {
      dropped++;
      return;
    }
    inFlight++;
    sent++;
    const bodyIndex = nextBody(prepared);
    void client.send(prepared.payloads[bodyIndex] as Buffer).then((outcome) => {
      try {
        tally.latency(performance.now() - dueAt);
        checkOutcome(outcome, prepared, bodyIndex, tally);
      } finally {
        inFlight--;
        if (inFlight === 0 && drained !== undefined) drained();
      }
    });
  };

  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      // Request i is due at start + i × interval; issue every one due by now.
      const due = Math.min(total, Math.floor((now - start) / intervalMs) + 1);
      while (scheduled < due) issue(start + scheduled++ * intervalMs);
      if (scheduled >= total) return resolve();
      setTimeout(tick, Math.max(0, start + scheduled * intervalMs - performance.now()));
    };
    tick();
  });
  // The step lasts `seconds` even though the last request is due 1/rate earlier.
  const rest = start + seconds * 1000 - performance.now();
  if (rest > 0) await new Promise((r) => setTimeout(r, rest));
  if (inFlight > 0) await new Promise<void>((r) => (drained = r));

  return {
    rate,
    seconds,
    sent,
    ok: tally.ok,
    failed: tally.failed,
    dropped,
    errorRate: tally.errorRate(),
    achievedRps: tally.ok / seconds,
    failures: tally.failures,
    ...tally.stats(),
  };
}
