/**
 * eth_simulateV1: multi-block simulation with state and block overrides (geth's semantics and
 * error codes). The RPC thread validates the request (shape, limits, hex fields, call objects)
 * and resolves the block tag; the simulation runs in the execution pool
 * (src/execution/simulate/simulator.ts), which answers the result's JSON text.
 */
import type { CallBlockRef } from "../../execution/callTarget.js";
import { parseSimulateRequest } from "../simulateParams.js";
import { to0x } from "../../util/bytes.js";
import type { RpcBackend } from "../backend.js";
import { isPendingParam, parseBlockParam, resolveStateBlock } from "../blockParam.js";
import { maxParams, parseCallArgs, required } from "../params.js";
import { RawJson, type MethodTable } from "../types.js";
import { pendingFor } from "./pending.js";

/** Handlers of eth_simulateV1. */
export function simulateMethods(b: RpcBackend): MethodTable {
  const { chain, calls } = b;
  return {
    /** eth_simulateV1(simulationOptions, block) */
    eth_simulateV1: async (params) => {
      maxParams(params, 2);
      const simulate = parseSimulateRequest(required(params, 0), (c) => parseCallArgs(c, 0));
      const p = parseBlockParam(params[1], 1, { allowHash: true, optional: true });
      const block: CallBlockRef = isPendingParam(p) && pendingFor(b, "eth_simulateV1") !== undefined ? { pending: true } : { hash: to0x(resolveStateBlock(chain, p).hash()) };
      return new RawJson(await calls.execute({ method: "eth_simulateV1", args: {}, block, gasCap: b.settings.gasCap, simulate }));
    },
  };
}
