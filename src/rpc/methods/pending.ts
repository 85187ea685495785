/**
 * Reads of the pending (pre-confirmed, flashblocks) state shared by the method families that
 * answer the `pending` tag: which snapshot a request sees, its transactions and blocks by hash,
 * its state (the snapshot's diff over the head state) and the execution context of pending
 * calls. Every helper is O(1) per lookup after a per-snapshot index is built once.
 *
 * A request resolves `pending` once ({@link pendingFor}); without a snapshot every `pending`
 * read answers exactly as `latest` (never an older block, never null).
 */
import { pendingStateOf } from "../../flashblocks/pendingContext.js";
import type { PendingBlockView, PendingSnapshot, PendingTx } from "../../flashblocks/pendingSnapshot.js";
import { isAheadOfHead, type PendingStateReader } from "../../flashblocks/pendingView.js";
import { counter } from "../../util/metrics.js";
import { FlashblockPositionError, FlashblockPositionErrorCode } from "../../flashblocks/errors.js";
import { resolvePosition, type PositionAnswer } from "../../flashblocks/pendingAt.js";
import type { BlockParam } from "../blockParam.js";
import type { RpcBackend } from "../backend.js";

/** `pending` reads by method and by where they were answered from (`pending` snapshot or `latest` fallback). */
const rpcPendingReadsTotal = counter({
  name: "basalt_rpc_pending_reads_total",
  help: "JSON-RPC reads of the pending tag, by method and answer source",
  labelNames: ["method", "source"],
});

/**
 * The snapshot answering `pending` for one request, or undefined when there is none — the caller
 * then answers from `latest`. Resolved once per request. The source only hands out snapshots
 * ahead of the canonical head; a snapshot whose pending block is not ahead (a race with a new
 * head) is treated as absent here too, so `pending` never answers from an older block.
 * `method` labels {@link rpcPendingReadsTotal}.
 */
export function pendingFor(b: RpcBackend, method: string): PendingSnapshot | undefined {
  const s = b.pending.current();
  const ahead = s !== undefined && isAheadOfHead(s, b.chain.head.header.number);
  rpcPendingReadsTotal.inc({ method, source: ahead ? "pending" : "latest" });
  return ahead ? s : undefined;
}

/** Every block (any of them, not only the last) and transaction of a snapshot by hash. */
interface SnapshotIndex {
  txs: Map<string, PendingTx>;
  blocks: Map<string, PendingBlockView>;
}

const snapshotIndexes = new WeakMap<PendingSnapshot, SnapshotIndex>();

function indexOf(s: PendingSnapshot): SnapshotIndex {
  let ix = snapshotIndexes.get(s);
  if (ix === undefined) {
    ix = { txs: new Map(), blocks: new Map() };
    for (const block of s.blocks) {
      ix.blocks.set(block.hash.toLowerCase(), block);
      for (const tx of block.txs) ix.txs.set(tx.hash.toLowerCase(), tx);
    }
    snapshotIndexes.set(s, ix);
  }
  return ix;
}

/**
 * A pre-confirmed transaction of any block of the snapshot by hash (0x hex, any case), for
 * eth_getTransactionByHash, eth_getTransactionReceipt and eth_sendRawTransactionSync.
 */
export function findPendingTx(s: PendingSnapshot, hash: string): PendingTx | undefined {
  return indexOf(s).txs.get(hash.toLowerCase());
}

/** A block of the snapshot by its (partial-block) hash, for the by-hash block methods. */
export function findPendingBlock(s: PendingSnapshot, hash: string): PendingBlockView | undefined {
  return indexOf(s).blocks.get(hash.toLowerCase());
}

/**
 * The state after the pre-confirmed transactions: the snapshot's absolute diff layered over the
 * head state (eth_getBalance, eth_getCode, eth_getStorageAt, eth_getStorageValues,
 * eth_getTransactionCount and pending calls).
 */
export function pendingState(b: RpcBackend, s: PendingSnapshot): PendingStateReader {
  return pendingStateOf(b.chain, s);
}

/** Reads as of a flashblock (`{blockNumber, flashblockIndex}`) by method and outcome. */
export const rpcFlashblockPositionReadsTotal = counter({
  name: "basalt_rpc_flashblock_position_reads_total",
  help: "JSON-RPC reads as of a flashblock ({blockNumber, flashblockIndex}), by method and outcome: served from the pending block (pending), from the canonical block (canonical), refused because this node has not reached it (not_yet) or no longer retains it (not_retained)",
  labelNames: ["method", "outcome"],
});

/**
 * Where a `{blockNumber, flashblockIndex}` parameter of `method` is answered from
 * (`flashblocks/pendingAt.ts` `resolvePosition`, over this request's snapshot and head); throws
 * the typed `FlashblockPositionError` (JSON-RPC -32002, src/rpc/errors.ts) when this node cannot.
 */
export function positionFor(b: RpcBackend, method: string, p: Extract<BlockParam, { kind: "flashblock" }>): PositionAnswer {
  const s = b.pending.current();
  const head = b.chain.head.header.number;
  try {
    const answer = resolvePosition(s !== undefined && isAheadOfHead(s, head) ? s : undefined, head, { blockNumber: p.number, flashblockIndex: p.index });
    rpcFlashblockPositionReadsTotal.inc({ method, outcome: answer.kind });
    return answer;
  } catch (e) {
    if (e instanceof FlashblockPositionError) {
      rpcFlashblockPositionReadsTotal.inc({ method, outcome: e.code === FlashblockPositionErrorCode.NOT_YET ? "not_yet" : "not_retained" });
    }
    throw e;
  }
}
