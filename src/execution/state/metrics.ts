/** Prometheus metrics of the execution state (created with src/util/metrics.ts). */
import { histogram } from "../../util/metrics.js";

/**
 * Time of a block's final state root (`OverlayStateManager.getStateRoot` called by the OP block
 * executor's `finish`): the batch updates of every dirty storage trie and of the account
 * trie, their node reads included. Every OP block whose totals are computed is counted: imports
 * (`basalt import`, follow mode, engine_newPayload) and the blocks the sequencer seals.
 */
export const stateRootSeconds = histogram({
  name: "basalt_execution_state_root_seconds",
  help: "Time to compute an OP block's final state root (storage tries then account trie, node reads included), imported or sealed, in seconds",
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});
