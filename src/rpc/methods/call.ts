/**
 * Execution against state: eth_call, eth_estimateGas, eth_createAccessList. Execution is
 * delegated to the CallExecutor (the seam the worker pool takes over).
 */
import type { RpcBackend } from "../backend.js";
import { parseBlockParam, resolveStateBlock } from "../blockParam.js";
import { toData, toQuantity } from "../format/quantity.js";
import { maxParams, parseCallArgs, required } from "../params.js";
import type { MethodTable } from "../types.js";

/** Handlers of the call family. */
export function callMethods(b: RpcBackend): MethodTable {
  const { chain, calls } = b;
  const header = (params: unknown[], i: number) => resolveStateBlock(chain, parseBlockParam(params[i], i, { allowHash: true, optional: true })).header;
  return {
    /** eth_call(call, block) */
    eth_call: async (params) => {
      maxParams(params, 4);
      const args = parseCallArgs(required(params, 0), 0);
      return toData(await calls.call(header(params, 1), args, b.settings.gasCap));
    },
    /** eth_estimateGas(call, block) */
    eth_estimateGas: async (params) => {
      maxParams(params, 3);
      const args = parseCallArgs(required(params, 0), 0);
      return toQuantity(await calls.estimateGas(header(params, 1), args, b.settings.gasCap));
    },
    /** eth_createAccessList(call, block) */
    eth_createAccessList: async (params) => {
      maxParams(params, 2);
      const args = parseCallArgs(required(params, 0), 0);
      const r = await calls.createAccessList(header(params, 1), args, b.settings.gasCap);
      const out: Record<string, unknown> = { accessList: r.accessList, gasUsed: toQuantity(r.gasUsed) };
      if (r.error !== undefined) out.error = r.error;
      return out;
    },
  };
}
