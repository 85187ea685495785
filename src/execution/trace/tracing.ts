/**
 * What tracing runs with on the thread holding the chain: the chain's stored blocks, and for
 * traced calls the call executor and where `pending` is. Shared by the debug_trace* answers
 * (request.ts) and reth's trace_* answers (parityRequest.ts).
 */
import type { Block } from "@ethereumjs/block";
import type { CallChain, CallExecutor } from "../callExecutor.js";
import type { PendingCallTarget } from "../callTarget.js";

/** What tracing needs of the chain beyond calls: stored blocks and the transaction index. */
export interface TraceChain extends CallChain {
  getBlockByHash(hash: Uint8Array): Block | undefined;
}

/** What traced calls run with on the executing thread: the call executor and where `pending` is. */
export interface CallTracing {
  executor: CallExecutor;
  pending: PendingCallTarget;
}
