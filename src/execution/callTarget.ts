/**
 * Where a call-family request runs, in the form that crosses the thread boundary (a block hash
 * the RPC thread resolved, or `pending`), and its resolution on the executing thread. Shared by
 * the call family (callRequest.ts) and traced calls (trace/request.ts, trace/parityRequest.ts).
 */
import { fromHex } from "../util/bytes.js";
import type { CallChain, CallTarget } from "./callExecutor.js";
import { ExecutionError, ExecutionErrorCode } from "./errors.js";

/**
 * Where a request runs: after a block named by hash (resolved from the tag by the RPC thread),
 * or `pending` — the pre-confirmed state as the executing thread sees it when it runs (the
 * latest sealed block when there is none).
 */
export type CallBlockRef = { hash: string } | { pending: true; at?: PendingPosition };

/**
 * A pending block as of one flashblock (`{blockNumber, flashblockIndex}` block parameters): the
 * executing thread runs the call on the state after that flashblock, or on canonical block
 * `blockNumber` once it is canonical there.
 */
export interface PendingPosition {
  blockNumber: number;
  flashblockIndex: number;
}

/**
 * Where `pending` calls run on the executing thread, asked when a request runs: the pending
 * block's context over the pre-confirmed state, or undefined when there is none (the call then
 * runs on the latest sealed block). The flashblocks layer implements it
 * (`pendingCallTargetOf`, src/flashblocks/pendingContext.ts); execution only calls it.
 */
export type PendingCallTarget = (at?: PendingPosition) => CallTarget | undefined;

/** The execution target of `ref` on `chain` (pending resolved through `pending` now). */
export function resolveCallTarget(chain: CallChain, pending: PendingCallTarget, ref: CallBlockRef): CallTarget {
  // A position always resolves (to the pending state as of it, or its canonical block) or throws.
  if ("pending" in ref) return (ref.at === undefined ? pending() : pending(ref.at)) ?? chain.head.header;
  const header = chain.getHeaderByHash(fromHex(ref.hash));
  // The block was canonical when the RPC thread resolved the tag; a reorg since then removed it.
  if (header === undefined) throw new ExecutionError({ code: ExecutionErrorCode.HEADER_NOT_FOUND, hash: ref.hash }, "header not found");
  return header;
}
