/**
 * Execution against state: eth_call, eth_estimateGas, eth_createAccessList. The RPC thread
 * validates the parameters and resolves the block tag; execution happens in the execution pool
 * (`backend.calls`, src/execution/pool/executionPool.ts), which answers the result's JSON text.
 *
 * With the `pending` tag and a pending snapshot, calls run in the pending block's context over
 * the pre-confirmed state ({@link pendingCallContext}; the reference node uses the anchor
 * block's context instead, base/base issue #1439); without one, exactly as `latest`.
 */
import type { CallMethod, CallRequest } from "../../execution/callRequest.js";
import type { CallBlockRef } from "../../execution/callTarget.js";
import { parseBlockOverrides, parseStateOverrides } from "../overrideParams.js";
import type { RpcBackend } from "../backend.js";
import { isPendingParam, parseBlockParam, resolveStateBlock } from "../blockParam.js";
import { maxParams, parseCallArgs, required } from "../params.js";
import { RawJson, type MethodTable } from "../types.js";
import { pendingFor, positionFor } from "./pending.js";
import { to0x } from "../../util/bytes.js";

/** Handlers of the call family. */
export function callMethods(b: RpcBackend): MethodTable {
  const { chain, calls } = b;
  /** Where the call of `method` runs: the block parameter at `params[i]`, resolved once, here, to a hash (or pending). */
  const blockRef = (method: string, params: unknown[], i: number): CallBlockRef => {
    const p = parseBlockParam(params[i], i, { allowHash: true, allowFlashblock: true, optional: true });
    // As of a flashblock: checked here; the executing thread resolves it again on its own snapshot (canonical by then, or the same state).
    if (p.kind === "flashblock" && positionFor(b, method, p).kind === "pending") return { pending: true, at: { blockNumber: p.number, flashblockIndex: p.index } };
    if (isPendingParam(p) && pendingFor(b, method) !== undefined) return { pending: true };
    return { hash: to0x(resolveStateBlock(chain, p).hash()) };
  };
  /** Parses the call object here (a malformed request never reaches the pool), then executes. */
  const run = async (method: CallMethod, params: unknown[]): Promise<RawJson> => {
    const args = parseCallArgs(required(params, 0), 0);
    const block = blockRef(method, params, 1);
    const req: CallRequest = { method, args, block, gasCap: b.settings.gasCap };
    // geth: eth_call and eth_estimateGas take state overrides (third) and block overrides (fourth).
    if (method === "eth_call" || method === "eth_estimateGas") {
      const state = parseStateOverrides(params[2], "argument 2");
      const blockOverrides = parseBlockOverrides(params[3], "argument 3");
      if (state !== undefined) req.stateOverrides = state;
      if (blockOverrides !== undefined) req.blockOverrides = blockOverrides;
    }
    return new RawJson(await calls.execute(req));
  };
  return {
    /** eth_call(call, block, stateOverrides, blockOverrides) */
    eth_call: (params) => {
      maxParams(params, 4);
      return run("eth_call", params);
    },
    /** eth_estimateGas(call, block, stateOverrides, blockOverrides) */
    eth_estimateGas: (params) => {
      maxParams(params, 4);
      return run("eth_estimateGas", params);
    },
    /** eth_createAccessList(call, block) */
    eth_createAccessList: (params) => {
      maxParams(params, 2);
      return run("eth_createAccessList", params);
    },
  };
}
