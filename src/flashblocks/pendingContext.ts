/**
 * The pending (pre-confirmed) state and execution context of a snapshot on any thread that
 * holds a {@link Chain}: the RPC thread for state reads, the execution pool's workers for
 * pending calls.
 */
import type { BlockHeader } from "@ethereumjs/block";
import type { Chain } from "../blockchain/chain.js";
import type { CallContext } from "../execution/callExecutor.js";
import type { PendingCallTarget, PendingPosition } from "../execution/callTarget.js";
import { resolvePosition } from "./pendingAt.js";
import { pendingHead, type PendingSnapshot } from "./pendingSnapshot.js";
import { PendingStateReader, pendingStateIndex, type PendingSource } from "./pendingView.js";

/** The snapshot's absolute state diff layered over the head state of `chain`. */
export function pendingStateOf(chain: Chain, s: PendingSnapshot): PendingStateReader {
  return new PendingStateReader(chain.stateAt(chain.head.header), pendingStateIndex(s));
}

const pendingHeaders = new WeakMap<PendingSnapshot, BlockHeader>();

/** The pending block's header (decoded once per snapshot, with the hardfork of its number and time). */
function pendingHeaderOf(chain: Chain, s: PendingSnapshot): BlockHeader {
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
function pendingCallContextOf(chain: Chain, s: PendingSnapshot): CallContext {
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
  return (at) => {
    const s = source.current();
    if (at !== undefined) return pendingCallContextAt(chain, s, at);
    return s === undefined ? undefined : pendingCallContextOf(chain, s);
  };
}

/** Call contexts of positions other than the snapshot's latest, per snapshot (and head). */
const positionContexts = new WeakMap<PendingSnapshot, Map<string, { head: Uint8Array; ctx: CallContext }>>();

/**
 * Where a call "as of flashblock (N, K)" runs ({@link resolvePosition}): canonical block N's
 * header once N is canonical on this thread's chain, else the partial header of index K over the
 * pending state after flashblock K; throws `FlashblockPositionError` when this thread's snapshot
 * has not reached it (the RPC thread checked, but the snapshot may have moved since).
 */
function pendingCallContextAt(chain: Chain, s: PendingSnapshot | undefined, at: PendingPosition): CallContext | BlockHeader {
  const answer = resolvePosition(s, chain.head.header.number, at);
  if (answer.kind === "canonical") {
    const block = chain.getBlockByNumber(BigInt(at.blockNumber));
    if (block === undefined) throw new RangeError(`canonical block ${at.blockNumber} is missing below the head`);
    return block.header;
  }
  if (answer.at.block === pendingHead(s!)) return pendingCallContextOf(chain, s!);
  let known = positionContexts.get(s!);
  if (known === undefined) positionContexts.set(s!, (known = new Map()));
  const k = `${at.blockNumber}-${at.flashblockIndex}`;
  const head = chain.head.hash();
  const cached = known.get(k);
  if (cached !== undefined && Buffer.from(cached.head).equals(head)) return cached.ctx;
  const ctx = { header: chain.decodeHeader(answer.at.block.headerRlp), state: new PendingStateReader(chain.stateAt(chain.head.header), answer.at.state) };
  known.set(k, { head, ctx });
  return ctx;
}
