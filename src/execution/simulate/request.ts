/**
 * eth_simulateV1 in the form that crosses the thread boundary (plain values, call objects
 * decoded). The RPC thread parses and checks it (src/rpc/simulateParams.ts).
 */
import type { CallArgs } from "../callArgs.js";
import type { SerializedBlockOverrides, SerializedStateOverrides } from "./overrides.js";

/** One simulated block's input (geth `simBlock`). */
export interface SimulateBlockInput {
  blockOverrides?: SerializedBlockOverrides;
  stateOverrides?: SerializedStateOverrides;
  calls: CallArgs[];
}

/** The first parameter of eth_simulateV1 (geth `simOpts`), parsed. */
export interface SimulateRequest {
  blocks: SimulateBlockInput[];
  traceTransfers: boolean;
  validation: boolean;
  returnFullTransactions: boolean;
}
