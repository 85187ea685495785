/**
 * Execution against state: eth_call, eth_estimateGas, eth_createAccessList. Execution is
 * delegated to the CallExecutor (the seam the worker pool takes over).
 *
 * With the `pending` tag and a pending snapshot, calls run in the pending block's context over
 * the pre-confirmed state ({@link pendingCallContext}; the reference node uses the anchor
 * block's context instead, base/base issue #1439); without one, exactly as `latest`.
 */
import type { CallTarget } from "../../execution/callExecutor.js";
import type { RpcBackend } from "../backend.js";
import { isPendingParam, parseBlockParam, resolveStateBlock } from "../blockParam.js";
import { toData, toQuantity } from "../format/quantity.js";
import { maxParams, parseCallArgs, required } from "../params.js";
import type { MethodTable } from "../types.js";
import { pendingCallContext, pendingFor } from "./pending.js";

/** Handlers of the call family. */
export function callMethods(b: RpcBackend): MethodTable {
  const { chain, calls } = b;
  /** Where the call of `method` runs: the block parameter at `params[i]`, resolved once. */
  const target = (method: string, params: unknown[], i: number): CallTarget => {
    const p = parseBlockParam(params[i], i, { allowHash: true, optional: true });
    if (isPendingParam(p)) {
      const s = pendingFor(b, method);
      if (s !== undefined) return pendingCallContext(b, s);
    }
    return resolveStateBlock(chain, p).header;
  };
  return {
    /** eth_call(call, block) */
    eth_call: async (params) => {
      maxParams(params, 4);
      const args = parseCallArgs(required(params, 0), 0);
      return toData(await calls.call(target("eth_call", params, 1), args, b.settings.gasCap));
    },
    /** eth_estimateGas(call, block) */
    eth_estimateGas: async (params) => {
      maxParams(params, 3);
      const args = parseCallArgs(required(params, 0), 0);
      return toQuantity(await calls.estimateGas(target("eth_estimateGas", params, 1), args, b.settings.gasCap));
    },
    /** eth_createAccessList(call, block) */
    eth_createAccessList: async (params) => {
      maxParams(params, 2);
      const args = parseCallArgs(required(params, 0), 0);
      const r = await calls.createAccessList(target("eth_createAccessList", params, 1), args, b.settings.gasCap);
      const out: Record<string, unknown> = { accessList: r.accessList, gasUsed: toQuantity(r.gasUsed) };
      if (r.error !== undefined) out.error = r.error;
      return out;
    },
  };
}
