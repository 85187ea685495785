/** Errors of the basalt-vs-anvil benchmark scenario (`node dist/bench/scenario.js`). */
import { BasaltError } from "../../src/util/errors.js";

/** Stable codes of {@link ScenarioError}. */
export type ScenarioErrorCode =
  /** a command-line flag is unknown, missing its value, or has a value of the wrong form */
  | "BENCH_SCENARIO_ARG"
  /** a child process (basalt, anvil, the bare server) could not be started or did not become ready */
  | "BENCH_SCENARIO_SPAWN"
  /** a node answered a JSON-RPC call with an error or an unexpected shape, or did not answer in time */
  | "BENCH_SCENARIO_RPC"
  /** a workload transaction was refused, never mined, or failed */
  | "BENCH_SCENARIO_TX"
  /** basalt and anvil disagree on a transaction's status or gas, or on a block's transaction count */
  | "BENCH_SCENARIO_DISAGREE";

/** A failure of the scenario: bad input, a node that cannot be benchmarked, or nodes that disagree. */
export class ScenarioError extends BasaltError<Record<string, unknown>> {
  constructor(code: ScenarioErrorCode, message: string, meta: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(code, message, meta, options);
  }
}
