/**
 * The pending (pre-confirmed) state and execution context of a snapshot on any thread that
 * holds a {@link Chain}: the RPC thread for state reads, the execution pool's workers for
 * pending calls.
 */
import type { BlockHeader } from "@ethereumjs/block";
import type { Chain } from "../blockchain/chain.js";
import type { CallContext } from "../execution/callExecutor.js";
import type { PendingCallTarget } from "../execution/callRequest.js";
import { pendingHead, type PendingSnapshot } from "./pendingSnapshot.js";
import { PendingStateReader, pendingStateIndex, type PendingSource } from "./pendingView.js";

/** The snapshot's absolute state diff layered over the head state of `chain`. */
export function pendingStateOf(chain: Chain, s: PendingSnapshot): PendingStateReader {
  return new PendingStateReader(chain.stateAt(chain.head.header), pendingStateIndex(s));
}

const pendingHeaders = new WeakMap<PendingSnapshot, BlockHeader>();

/** The pending block's header (decoded once per snapshot, with the hardfork of its number and time). */
export function pendingHeaderOf(chain: Chain, s: PendingSnapshot): BlockHeader {
  let h = pendingHeaders.get(s);
  if (h === undefined) pendingHeaders.set(s, (h = chain.decodeHeader(pendingHead(s).headerRlp)));
  return h;
}

/** The call context of each snapshot, with the head it was built on. */
const callContexts = new WeakMap<PendingSnapshot, { head: Uint8Array; ctx: CallContext }>();

/**
 * Where eth_call, eth_estimateGas and eth_createAccessList run for `pending`: in the pending
 * block's own context (NUMBER, TIMESTAMP, BASEFEE, COINBASE, PREVRANDAO and gas limit of the
 * block being built; BLOCKHASH over its parent) on the pre-confirmed state.
 *
 * The reference node (base/base) runs pending calls in the context of the snapshot's canonical
 * anchor block instead, with the pending state as overrides — so NUMBER/TIMESTAMP lag the
 * pending block (base/base issue #1439, documented in base/docs PR #1234). basalt uses the
 * pending block's context, as a transaction sent now would see it.
 */
export function pendingCallContextOf(chain: Chain, s: PendingSnapshot): CallContext {
  // One context per snapshot and head, so the call executor reuses its VM and caches across calls.
  const head = chain.head.hash();
  const known = callContexts.get(s);
  if (known !== undefined && Buffer.from(known.head).equals(head)) return known.ctx;
  const ctx = { header: pendingHeaderOf(chain, s), state: pendingStateOf(chain, s) };
  callContexts.set(s, { head, ctx });
  return ctx;
}

/**
 * The execution layer's {@link PendingCallTarget} over `source`: where a `pending` call runs at the
 * moment it runs ({@link pendingCallContextOf} of the current snapshot), or undefined without
 * one. The execution pool's workers and the in-process call service pass it to
 * `executeCallRequest`.
 */
export function pendingCallTargetOf(chain: Chain, source: PendingSource): PendingCallTarget {
  return () => {
    const s = source.current();
    return s === undefined ? undefined : pendingCallContextOf(chain, s);
  };
}
