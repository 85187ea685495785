/**
 * The adapter between the EEST state-test runner and an execution engine.
 *
 * An engine gets one {@link StateTestCase} at a time (pre-state, block environment, the signed
 * transaction and its unpacked fields, fork and chain config) and returns what it computed:
 * the post-state root, the logs hash, and whether it rejected the transaction. The runner
 * (run.ts) compares the outcome with the fixture. Engines must not mutate the case (cases of
 * one test share their `env`, `pre` and `config` objects).
 *
 * Adding an engine: implement {@link StateTestEngine} in its own file and append it to
 * `ENGINES` in engines.ts.
 */
import type { StateTestCase } from "./fixtures.js";

export type { StateTestCase } from "./fixtures.js";

/** What an engine computed for one case. */
export interface StateTestOutcome {
  /** Post-state root after the transaction (for a rejected transaction: the unchanged pre-state root). */
  stateRoot: Uint8Array;
  /** keccak256(rlp(logs)) of the transaction's logs (empty list when rejected). */
  logsHash: Uint8Array;
  /** Set when the engine rejected the transaction as invalid (the reason). */
  rejected?: string;
  /** Set by an engine that handed this case to another engine (the fast engine's fallback). */
  fellBackTo?: string;
}

/** An execution engine under test. */
export interface StateTestEngine {
  /** Short unique name, used in the known-failures file and the printed table (e.g. "reference"). */
  readonly name: string;
  /** Runs one case from scratch (its pre-state only; nothing carries over between cases). */
  run(c: StateTestCase): Promise<StateTestOutcome>;
}
