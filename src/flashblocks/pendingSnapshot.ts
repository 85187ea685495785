/**
 * The pending (pre-confirmed) state as one immutable snapshot: what the flashblocks worker
 * publishes after each applied flashblock and what every `pending` RPC answer is read from.
 *
 * It crosses the thread boundary as bytes (msgpack) through the SharedArrayBuffer of
 * `pendingBuffer.ts`. Everything the RPC thread serves is pre-rendered here by the worker —
 * block JSON (hashes and full), each transaction and receipt JSON, the logs — so answering a
 * `pending` read costs a slice, not a formatting pass. The state diff (balances, nonces, code,
 * storage) is absolute: the values after the last pre-confirmed transaction, for every account
 * and slot the pending blocks touched, to be layered over the canonical anchor's state.
 *
 * Numbers that always fit in 2^53 (block numbers, timestamps, indexes) are JS numbers; hashes,
 * addresses and quantities are 0x-prefixed strings as the RPC prints them.
 */
import { Packr } from "msgpackr";
import type { RpcLog } from "../chain/json/receipt.js";

/** Layout version of {@link PendingSnapshot}; readers ignore snapshots of another version. */
export const PENDING_SNAPSHOT_VERSION = 1;

/** One pre-confirmed transaction, with everything the RPC answers about it pre-rendered. */
export interface PendingTx {
  /** Transaction hash (0x, 32 bytes). */
  hash: string;
  /** Sender (0x, lowercase). */
  from: string;
  /** Recipient (0x, lowercase), null for a contract creation. */
  to: string | null;
  /** The eth_getTransactionByHash JSON (blockHash/blockNumber/transactionIndex of its pending block). */
  txJson: string;
  /** The eth_getTransactionReceipt JSON. */
  receiptJson: string;
  /** Its logs, formatted as eth_getLogs returns them (block-wide logIndex). */
  logs: RpcLog[];
}

/** One pending block (the block being built, or an earlier one not yet canonical). */
export interface PendingBlockView {
  number: number;
  /** Hash of the partial block at the current flashblock index (keccak of its header RLP). */
  hash: string;
  parentHash: string;
  timestamp: number;
  /** Latest flashblock index applied to this block. */
  index: number;
  /** Payload id of the build (0x, 8 bytes). */
  payloadId: string;
  /** RLP of the partial header (state root as published: zero on Base); the context of pending calls. */
  headerRlp: Uint8Array;
  /** eth_getBlockByNumber("pending", false) JSON. */
  blockJson: string;
  /** eth_getBlockByNumber("pending", true) JSON. */
  blockJsonFull: string;
  /** eth_getBlockReceipts("pending") JSON (an array). */
  receiptsJson: string;
  /** Transactions in block order. */
  txs: PendingTx[];
  /** Number of transactions the latest flashblock added (the tail of `txs`). */
  newTxCount: number;
}

/** The pending state changes, absolute, relative to the anchor (the canonical parent of the earliest pending block). */
export interface PendingStateDiff {
  /** Address (20 bytes) → account RLP after the pending transactions, or null when deleted. */
  accounts: [Uint8Array, Uint8Array | null][];
  /** (address, slot, value): value with leading zeros stripped, empty = zero. */
  storage: [Uint8Array, Uint8Array, Uint8Array][];
  /** Code hash → code written by the pending transactions. */
  code: [Uint8Array, Uint8Array][];
}

/** The pending state published after one flashblock. */
export interface PendingSnapshot {
  version: number;
  /** Canonical block the earliest pending block builds on. */
  anchor: { number: number; hash: string };
  /** Pending blocks, oldest first; the last is "the pending block". */
  blocks: PendingBlockView[];
  state: PendingStateDiff;
  /** Flashblock that produced this snapshot. */
  flashblock: { block: number; index: number };
  /**
   * When that flashblock's frame arrived at the worker: `performance.timeOrigin +
   * performance.now()` in ms (comparable across the threads of one process).
   */
  receivedAt: number;
  /** When the worker finished executing it (same clock). */
  executedAt: number;
}

const packr = new Packr({ useRecords: false, moreTypes: false });

/** Serializes a snapshot for the shared buffer. */
export function encodePendingSnapshot(s: PendingSnapshot): Uint8Array {
  return packr.pack(s);
}

/** Reads a snapshot back; undefined for bytes of another layout version. */
export function decodePendingSnapshot(bytes: Uint8Array): PendingSnapshot | undefined {
  const s = packr.unpack(bytes) as PendingSnapshot;
  return s !== null && typeof s === "object" && s.version === PENDING_SNAPSHOT_VERSION ? s : undefined;
}

/** The pending block of a snapshot (its last block). */
export function pendingHead(s: PendingSnapshot): PendingBlockView {
  const b = s.blocks.at(-1);
  if (b === undefined) throw new RangeError("pending snapshot without blocks");
  return b;
}
