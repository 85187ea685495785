/** Errors of the HTTP load tool (`basalt bench load`). */
import { BasaltError } from "../../src/util/errors.js";

/** Stable codes of {@link LoadError}. */
export type LoadErrorCode =
  /** a command-line flag is unknown, missing its value, or has a value of the wrong form */
  | "BENCH_LOAD_ARG"
  /** the `--corpus` file cannot be read or does not have the expected shape */
  | "BENCH_LOAD_CORPUS_FILE"
  /** the node asked to build corpora did not answer as expected */
  | "BENCH_LOAD_DISCOVERY"
  /** a load plan is inconsistent (no endpoints, empty corpus, bad rate…) */
  | "BENCH_LOAD_PLAN"
  /** a thread of the load generator failed, or its compiled code is missing */
  | "BENCH_LOAD_GENERATOR"
  /** wrk could not be run or its output not read */
  | "BENCH_LOAD_WRK"
  /** a timed request of the sequential client failed: connection ended, timeout, or one already in flight */
  | "BENCH_LOAD_REQUEST";

/** A mistake in the load tool's input, or a node that cannot be benchmarked. */
export class LoadError extends BasaltError<Record<string, unknown>> {
  constructor(code: LoadErrorCode, message: string, meta: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(code, message, meta, options);
  }
}
