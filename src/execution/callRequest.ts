/**
 * One request of the call family (eth_call, eth_estimateGas, eth_createAccessList) in the form
 * that crosses thread boundaries, and the one function that answers it on whichever thread
 * holds the chain: the execution pool's workers in a running node, the calling thread in
 * in-process tests (`InlineCallService`, src/rpc/inlineCalls.ts).
 *
 * The RPC thread validates the parameters and resolves the block tag to a block hash (or to
 * `pending`) before a request is sent, so malformed requests are refused without a thread hop
 * and every worker executes exactly the block the RPC thread saw.
 */
import { ServerError } from "../rpc/errors.js";
import { toData, toQuantity } from "../chain/json/quantity.js";
import { parseCallArgs } from "../rpc/params.js";
import { fromHex } from "../util/bytes.js";
import type { CallChain, CallExecutor, CallTarget } from "./callExecutor.js";

/** The methods the execution pool serves. */
export type CallMethod = "eth_call" | "eth_estimateGas" | "eth_createAccessList";

/**
 * Where a request runs: after a block named by hash (resolved from the tag by the RPC thread),
 * or `pending` — the pre-confirmed state as the executing thread sees it when it runs (the
 * latest sealed block when there is none).
 */
export type CallBlockRef = { hash: string } | { pending: true };

/** A call-family request: plain JSON values and strings only. */
export interface CallRequest {
  method: CallMethod;
  /** The call object exactly as received (params[0]); validated by the sender, re-parsed by the executor. */
  args: unknown;
  block: CallBlockRef;
  /** Gas cap (`--rpc.gascap`), decimal string. */
  gasCap: string;
}

/** Runs call-family requests and resolves with the serialized JSON-RPC `result`. */
export interface CallService {
  /** Executes `req`; resolves with the result as JSON text; rejects with an RpcError. */
  execute(req: CallRequest): Promise<string>;
  /** Releases threads and timers. */
  close(): Promise<void>;
}

/**
 * Where `pending` calls run on the executing thread, asked when a request runs: the pending
 * block's context over the pre-confirmed state, or undefined when there is none (the call then
 * runs on the latest sealed block). The flashblocks layer implements it
 * (`pendingCallTargetOf`, src/flashblocks/pendingContext.ts); execution only calls it.
 */
export type PendingCallTarget = () => CallTarget | undefined;

/** The execution target of `ref` on `chain` (pending resolved through `pending` now). */
export function resolveCallTarget(chain: CallChain, pending: PendingCallTarget, ref: CallBlockRef): CallTarget {
  if ("pending" in ref) return pending() ?? chain.head.header;
  const header = chain.getHeaderByHash(fromHex(ref.hash));
  // The block was canonical when the RPC thread resolved the tag; a reorg since then removed it.
  if (header === undefined) throw new ServerError("header not found");
  return header;
}

/**
 * Executes `req` with `executor` over `chain` and returns the JSON text of the result
 * (eth_call: output data; eth_estimateGas: gas quantity; eth_createAccessList: the list object).
 */
export async function executeCallRequest(chain: CallChain, pending: PendingCallTarget, executor: CallExecutor, req: CallRequest): Promise<string> {
  const args = parseCallArgs(req.args, 0);
  const target = resolveCallTarget(chain, pending, req.block);
  const cap = BigInt(req.gasCap);
  switch (req.method) {
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
