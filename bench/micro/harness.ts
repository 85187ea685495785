/**
 * The micro-benchmark harness: a case is an operation on realistic data plus a check of its
 * output. Each selected case is prepared, run once and checked (a wrong output fails the case
 * and it is not timed, so a broken fast path cannot report a fast number), then timed with
 * tinybench.
 */
import { Bench } from "tinybench";
import { BasaltError, TypedError } from "../../src/util/errors.js";

/**
 * Minimum timed iterations per case, even when the time budget runs out first: enough for a
 * mean and a p99 (= the maximum at this count) of the slow cases (a 200-transaction block
 * import or pure-JS sender recovery take 0.1–0.5 s each) without multiplying their run time.
 */
const MIN_ITERATIONS = 10;
/** Minimum warm-up iterations (JIT, caches) before timing, in addition to the warm-up time. */
const WARMUP_ITERATIONS = 3;
/** Warm-up time budget as a fraction of the timed budget (tinybench's own default is 250 of 1000 ms). */
const WARMUP_FRACTION = 0.25;

/** A figure derived from a case's mean latency, e.g. 1.9 µs/tx or 45 Mgas/s. */
export interface DerivedFigure {
  value: number;
  unit: string;
}

/**
 * One micro-benchmark case. `run` is what is timed; everything else is untimed. The methods use
 * method syntax so cases of different output types fit one `MicroCase[]`.
 */
export interface MicroCase<T = unknown> {
  /** Unique, dotted name (the `--filter` matches substrings of it). */
  name: string;
  /** The items one operation covers (e.g. 201 transactions): reported as µs per item. */
  perItem?: { count: number; unit: string };
  /** Another figure derived from the mean latency in ms (throughput: MB/s, Mgas/s). */
  derived?(meanMs: number): DerivedFigure;
  /** Untimed preparation, only done when the case is selected. */
  prepare?(): Promise<void>;
  /** The measured operation. */
  run(): T | Promise<T>;
  /** Throws a {@link MicroCheckError} when `out` (the output of one run) is wrong. */
  check(out: T): void | Promise<void>;
  /** Untimed, after every run (the checked one included): undoes what a run changed. */
  reset?(): void | Promise<void>;
  /** Untimed, once after timing (or a failure): frees what `prepare` made. */
  dispose?(): Promise<void>;
}

/** The outcome of one case. Latencies in µs; `ok` false means it failed preparation, its check or a timed run. */
export interface MicroResult {
  name: string;
  ok: boolean;
  error?: string;
  opsPerSecond: number;
  meanUs: number;
  p50Us: number;
  p99Us: number;
  samples: number;
  /** Relative margin of error of the mean, in percent (95 %). */
  rmePercent: number;
  perItem?: DerivedFigure;
  derived?: DerivedFigure;
}

/** A case's output was wrong: the case fails and is not timed. */
export class MicroCheckError extends BasaltError {
  constructor(caseName: string, message: string) {
    super("MICRO_CHECK_FAILED", `${caseName}: ${message}`, { caseName });
  }
}

/** A {@link MicroRunError}'s code with its metadata (`caseName`: the case whose timing did not complete). */
type MicroRunErrorType = { code: "MICRO_RUN_FAILED"; caseName: string };

/** A case whose timed run did not complete (it threw, or the timer gave no result). */
class MicroRunError extends TypedError<MicroRunErrorType> {}

/** Throws a {@link MicroCheckError} of `caseName` unless `cond` holds. */
export function expectThat(cond: boolean, caseName: string, what: () => string): asserts cond {
  if (!cond) throw new MicroCheckError(caseName, what());
}

/** Options of {@link runCase}. */
export interface RunCaseOptions {
  /** Timed budget per case in ms (tinybench `time`); at least {@link MIN_ITERATIONS} runs are timed anyway. */
  timeMs: number;
}

function failed(name: string, e: unknown): MicroResult {
  const error = e instanceof Error ? e.message : String(e);
  return { name, ok: false, error, opsPerSecond: 0, meanUs: 0, p50Us: 0, p99Us: 0, samples: 0, rmePercent: 0 };
}

/** Holds the last output of a timed run, so the engine cannot drop the work as unused. */
const sink: { last: unknown } = { last: undefined };

/** Prepares, checks once, then times one case. Never throws: failures are reported in the result. */
export async function runCase(c: MicroCase, opts: RunCaseOptions): Promise<MicroResult> {
  try {
    await c.prepare?.();
    const first = c.run();
    const isAsync = first instanceof Promise;
    const out = await first;
    await c.reset?.();
    await c.check(out);

    const bench = new Bench({
      name: c.name,
      time: opts.timeMs,
      iterations: MIN_ITERATIONS,
      warmupTime: opts.timeMs * WARMUP_FRACTION,
      warmupIterations: WARMUP_ITERATIONS,
      throws: true,
    });
    const fn = isAsync
      ? async (): Promise<void> => {
          sink.last = await c.run();
        }
      : (): void => {
          sink.last = c.run();
        };
    const reset = c.reset === undefined ? undefined : async (): Promise<void> => c.reset?.();
    bench.add(c.name, fn, { async: isAsync, afterEach: reset });
    await bench.run();
    const result = bench.tasks[0]?.result;
    if (result === undefined || result.state !== "completed") {
      const why = result !== undefined && result.state === "errored" ? result.error.message : `state ${result?.state ?? "missing"}`;
      return failed(c.name, new MicroRunError({ code: "MICRO_RUN_FAILED", caseName: c.name }, `${c.name}: timing did not complete (${why})`));
    }
    const lat = result.latency;
    const meanMs = lat.mean;
    const r: MicroResult = {
      name: c.name,
      ok: true,
      opsPerSecond: meanMs > 0 ? 1000 / meanMs : 0,
      meanUs: meanMs * 1000,
      p50Us: lat.p50 * 1000,
      p99Us: lat.p99 * 1000,
      samples: lat.samplesCount,
      rmePercent: lat.rme,
    };
    if (c.perItem !== undefined && c.perItem.count > 0) r.perItem = { value: (meanMs * 1000) / c.perItem.count, unit: `µs/${c.perItem.unit}` };
    if (c.derived !== undefined) r.derived = c.derived(meanMs);
    return r;
  } catch (e) {
    return failed(c.name, e);
  } finally {
    sink.last = undefined;
    try {
      await c.dispose?.();
    } catch {
      // A failing cleanup must not hide the case's result; the fixture's own cleanup follows.
    }
  }
}
