/**
 * One request of the call family (eth_call, eth_estimateGas, eth_createAccessList) in the form
 * that crosses thread boundaries, and the one function that answers it on whichever thread
 * holds a {@link Chain}: the execution pool's workers in a running node, the calling thread in
 * in-process tests ({@link InlineCallService}).
 *
 * The RPC thread validates the parameters and resolves the block tag to a block hash (or to
 * `pending`) before a request is sent, so malformed requests are refused without a thread hop
 * and every worker executes exactly the block the RPC thread saw.
 */
import type { PendingSource } from "../flashblocks/pendingView.js";
import { ServerError } from "../rpc/errors.js";
import { toData, toQuantity } from "../chain/json/quantity.js";
import { parseCallArgs } from "../rpc/params.js";
import { fromHex } from "../util/bytes.js";
import type { Chain } from "../blockchain/chain.js";
import { CallExecutor, type CallTarget } from "./callExecutor.js";
import { pendingCallContextOf } from "../flashblocks/pendingContext.js";

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

/** The execution target of `ref` on `chain` (pending resolved against `pending` now). */
export function resolveCallTarget(chain: Chain, pending: PendingSource, ref: CallBlockRef): CallTarget {
  if ("pending" in ref) {
    const s = pending.current();
    return s === undefined ? chain.head.header : pendingCallContextOf(chain, s);
  }
  const header = chain.getHeaderByHash(fromHex(ref.hash));
  // The block was canonical when the RPC thread resolved the tag; a reorg since then removed it.
  if (header === undefined) throw new ServerError("header not found");
  return header;
}

/**
 * Executes `req` with `executor` over `chain` and returns the JSON text of the result
 * (eth_call: output data; eth_estimateGas: gas quantity; eth_createAccessList: the list object).
 */
export async function executeCallRequest(chain: Chain, pending: PendingSource, executor: CallExecutor, req: CallRequest): Promise<string> {
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

/**
 * Executes call-family requests on the calling thread. Used by in-process tests (and inside
 * each pool worker); a running node sends them to the execution pool instead.
 */
export class InlineCallService implements CallService {
  private readonly executor: CallExecutor;
  constructor(
    private readonly chain: Chain,
    private readonly pending: PendingSource,
  ) {
    this.executor = new CallExecutor(chain);
  }
  execute(req: CallRequest): Promise<string> {
    return executeCallRequest(this.chain, this.pending, this.executor, req);
  }
  async close(): Promise<void> {}
}
