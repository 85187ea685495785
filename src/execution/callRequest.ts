/**
 * One request of the call family (eth_call, eth_estimateGas, eth_createAccessList) in the form
 * that crosses thread boundaries, and the one function that answers it on whichever thread
 * holds the chain: the execution pool's workers in a running node, the calling thread in
 * in-process tests (`InlineCallService`, src/rpc/inlineCalls.ts).
 *
 * The RPC thread parses the parameters and resolves the block tag to a block hash (or to
 * `pending`) before a request is sent, so malformed requests are refused without a thread hop
 * and every worker executes exactly the block the RPC thread saw. The call arguments cross the
 * boundary in their one decoded form ({@link CallArgs}: bigint and bytes, no class instance),
 * inside the batch's one msgpack encoding (src/execution/pool/protocol.ts).
 */
import { toData, toQuantity } from "../chain/json/quantity.js";
import { callContextOf, type CallChain, type CallExecutor } from "./callExecutor.js";
import type { CallArgs } from "./callArgs.js";
import { resolveCallTarget, type CallBlockRef, type PendingCallTarget } from "./callTarget.js";

import type { WitnessRequest } from "./witness/request.js";
import type { TraceRequest } from "./trace/request.js";
import type { MeterRequest } from "./metering/request.js";
import type { SerializedBlockOverrides, SerializedStateOverrides } from "./simulate/overrides.js";
import type { SimulateRequest } from "./simulate/request.js";
import { overriddenTarget } from "./simulate/callOverrides.js";
import { simulate } from "./simulate/simulator.js";
import { renderSimulation } from "./simulate/render.js";
import { MAX_SIMULATE_BLOCKS } from "./constants.js";

/** The methods the execution pool serves. */
export type CallMethod = "eth_call" | "eth_estimateGas" | "eth_createAccessList" | "eth_simulateV1";

/** A call-family request: plain values, bigint and bytes only (no class instance). */
export interface CallRequest {
  method: CallMethod;
  /** The call object, parsed and validated by the RPC thread. */
  args: CallArgs;
  block: CallBlockRef;
  /** Gas cap (`--rpc.gascap`). */
  gasCap: bigint;
  /** eth_call / eth_estimateGas: state overrides (third parameter). */
  stateOverrides?: SerializedStateOverrides;
  /** eth_call / eth_estimateGas: block overrides (fourth parameter). */
  blockOverrides?: SerializedBlockOverrides;
  /** eth_simulateV1: the simulation (`args` is then empty). */
  simulate?: SimulateRequest;
}

/** Runs call-family requests and execution witnesses, and resolves with the serialized JSON-RPC `result`. */
export interface CallService {
  /**
   * Executes `req`; resolves with the result as JSON text; rejects with the typed error of the
   * failure (an {@link ExecutionError}, a pool error, …), which src/rpc/errors.ts maps.
   */
  execute(req: CallRequest): Promise<string>;
  /**
   * The execution witness of a block or of a payload (debug_executionWitness,
   * debug_executePayload), as JSON text; rejects with the typed error of the failure.
   */
  witness(req: WitnessRequest): Promise<string>;
  /**
   * A trace (debug_traceTransaction, debug_traceBlockByNumber/ByHash, debug_traceBlock: `method`
   * names it for metrics), as JSON text; rejects with the typed error of the failure.
   */
  trace(method: string, req: TraceRequest): Promise<string>;
  /**
   * A metering (base_meterBundle, base_meterBlockBy*: `method` names it for metrics) as JSON
   * text, with freshly measured times; rejects with the typed error of the failure.
   */
  meter(method: string, req: MeterRequest): Promise<string>;
  /** Releases threads and timers. */
  close(): Promise<void>;
}

/**
 * Executes `req` with `executor` over `chain` and returns the JSON text of the result
 * (eth_call: output data; eth_estimateGas: gas quantity; eth_createAccessList: the list object).
 */
export async function executeCallRequest(chain: CallChain, pending: PendingCallTarget, executor: CallExecutor, req: CallRequest): Promise<string> {
  const args = req.args;
  let target = resolveCallTarget(chain, pending, req.block);
  const cap = req.gasCap;
  if (req.stateOverrides !== undefined || req.blockOverrides !== undefined) target = overriddenTarget(chain, target, req.stateOverrides, req.blockOverrides);
  switch (req.method) {
    case "eth_simulateV1": {
      if (req.simulate === undefined) throw new TypeError("eth_simulateV1 request without its simulation");
      const blocks = await simulate(chain, callContextOf(target), req.simulate, { gasCap: cap, maxBlocks: MAX_SIMULATE_BLOCKS });
      return renderSimulation(blocks, req.simulate.returnFullTransactions);
    }
    case "eth_call":
      return JSON.stringify(toData(await executor.call(target, args, cap)));
    case "eth_estimateGas":
      return JSON.stringify(toQuantity(await executor.estimateGas(target, args, cap)));
    case "eth_createAccessList": {
      const r = await executor.createAccessList(target, args, cap);
      const out: Record<string, unknown> = { accessList: r.accessList, gasUsed: toQuantity(r.gasUsed) };
      if (r.error !== undefined) out.error = r.error;
      return JSON.stringify(out);
    }
  }
}
