/**
 * Waiting helpers shared by the tests (every wait is bounded; none measures time).
 *
 * The only place in test/ that waits on a timer: tests poll for the condition they wait for
 * ({@link pollUntil}, {@link waitUntil}); a wait whose length is itself the behaviour under test
 * (a negative check "nothing happens within X ms", a load's pacing, a random kill point) goes
 * through {@link settle}, which names why. `test/unit/testHygieneGate.test.ts` enforces this.
 */

/** Resolves after `ms` milliseconds, or earlier when `wake` calls the function it is given. */
function pause(ms: number, wake?: (wakeUp: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    wake?.(() => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** How {@link pollUntil} polls (a number is the interval). */
export interface PollOptions {
  /** Time between two polls (default 100 ms). */
  intervalMs?: number;
  /**
   * Registers a wake-up: `fn` is given a function that ends the current interval at once (e.g. pushed
   * onto a list of waiters a message handler calls), so an event-driven wait re-checks immediately.
   */
  wake?: (wakeUp: () => void) => void;
  /** Errors thrown by `fn` count as "no value yet" (the last one is named on timeout); by default they end the wait. */
  retryErrors?: boolean;
  /** Extra text for the timeout message (e.g. what was seen instead), read when the wait times out. */
  detail?: () => string;
}

/**
 * Polls `fn` until it returns a value other than undefined; throws after `timeoutMs`, naming `what`.
 * `opts` is the poll interval in ms (default 100) or {@link PollOptions}.
 */
export async function pollUntil<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined> | T | undefined, opts: number | PollOptions = {}): Promise<T> {
  const o: PollOptions = typeof opts === "number" ? { intervalMs: opts } : opts;
  const intervalMs = o.intervalMs ?? 100;
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  let failed = false;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (e) {
      if (o.retryErrors !== true) throw e;
      last = e;
      failed = true;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const lastError = failed ? `; last error: ${last instanceof Error ? last.message : String(last)}` : "";
      const detail = o.detail === undefined ? "" : `; ${o.detail()}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError}${detail}`);
    }
    await pause(Math.min(intervalMs, left), o.wake);
  }
}

/** Polls `cond` until it holds (every 10 ms unless `opts` says otherwise); throws after `timeoutMs`, naming `what`. */
export async function waitUntil(what: string, timeoutMs: number, cond: () => boolean | Promise<boolean>, opts: number | PollOptions = 10): Promise<void> {
  await pollUntil(what, timeoutMs, async () => ((await cond()) ? true : undefined), typeof opts === "number" ? opts : { intervalMs: 10, ...opts });
}

/**
 * Waits `ms` on purpose — the one fixed wait tests may use, for when the time itself is the
 * behaviour under test: a negative check ("nothing arrives within `ms`"), a load's pacing, a handler
 * that takes time, a random kill point. `why` says which (it names the wait in a stack trace and
 * in the source). `sample`, if given, runs every `sampleEveryMs` meanwhile (e.g. to record the head).
 */
export async function settle(ms: number, why: string, sample?: () => Promise<void> | void, sampleEveryMs = 50): Promise<void> {
  if (why.trim() === "") throw new Error("settle: say why the test waits a fixed time");
  const end = Date.now() + ms;
  if (sample === undefined) return pause(ms);
  for (;;) {
    await sample();
    const left = end - Date.now();
    if (left <= 0) return;
    await pause(Math.min(sampleEveryMs, left));
  }
}
