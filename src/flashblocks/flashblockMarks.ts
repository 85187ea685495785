/**
 * What a pending block retains of each of its flashblocks, so the RPC can answer "as of
 * flashblock K" (`{blockNumber, flashblockIndex}` block parameters, base/base issue #508) while
 * the block is pending: a {@link FlashblockMark} per applied index — the transaction count at the
 * index's end, the partial header (RLP, hash, block JSON around its transactions list) and the
 * state delta that flashblock made.
 *
 * The delta is what changed in the pending state diff (absolute values, over the canonical
 * anchor) between the previous frame and this one, so folding the deltas of every frame up to
 * (block, K) in order gives the pending state diff at that point. It is computed by the worker
 * after each frame ({@link MarkRecorder}) and encoded once; a frame re-sends the encoded marks
 * as bytes and the RPC thread decodes a mark only when a request names it.
 */
import { Packr } from "msgpackr";
import type { PendingStateDiff } from "./pendingSnapshot.js";

/** The change a flashblock made to the pending state diff (absolute values, over the anchor). */
export interface StateDelta {
  /** Accounts set by this flashblock: address → slim account RLP, null when deleted. */
  accounts: [Uint8Array, Uint8Array | null][];
  /** Slots set by this flashblock: (address, slot, value). */
  storage: [Uint8Array, Uint8Array, Uint8Array][];
  /** Accounts wiped by this flashblock: their earlier slots are dropped (their current ones are in `storage`). */
  cleared: Uint8Array[];
  /** Code written by this flashblock: code hash → code. */
  code: [Uint8Array, Uint8Array][];
  /** Accounts that left the diff (back to the anchor's value): read from the anchor again. */
  droppedAccounts: Uint8Array[];
  /** Slots that left the diff (back to the anchor's value). */
  droppedStorage: [Uint8Array, Uint8Array][];
}

/** One applied flashblock of a pending block. */
export interface FlashblockMark {
  index: number;
  /** Transactions of flashblocks 0..index (the block's first `txCount`). */
  txCount: number;
  /** Hash of the partial block at this index (0x). */
  hash: string;
  /** RLP of the partial header at this index (the context of calls as of this index). */
  headerRlp: Uint8Array;
  /** The block JSON at this index before and after its transactions list. */
  around: [string, string];
  state: StateDelta;
}

const packr = new Packr({ useRecords: false, moreTypes: false });

/** Encodes a mark once, in the worker; frames re-send the bytes. */
export function encodeMark(m: FlashblockMark): Uint8Array {
  return packr.pack(m);
}

/** Reads a mark back (RPC thread, execution workers), only when a request names it. */
export function decodeMark(bytes: Uint8Array): FlashblockMark {
  return packr.unpack(bytes) as FlashblockMark;
}

/** Hex keys by byte array: the overlay hands out the same address and slot arrays for entries it did not recompute. */
const keys = new WeakMap<Uint8Array, string>();
function hex(b: Uint8Array): string {
  let k = keys.get(b);
  if (k === undefined) keys.set(b, (k = Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex")));
  return k;
}

function same(a: Uint8Array | null | undefined, b: Uint8Array | null): boolean {
  if (a === b) return true;
  if (a === undefined || a === null || b === null || a.length !== b.length) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/**
 * Computes each frame's {@link StateDelta} from the absolute pending diffs of consecutive
 * frames (one instance per chain of pending blocks on one anchor; {@link reset} with the anchor).
 * A frame costs one pass over the diff; entries the overlay did not recompute are the same
 * arrays as the frame before and compare by reference.
 */
export class MarkRecorder {
  private accounts = new Map<string, Uint8Array | null>();
  private storage = new Map<string, [address: Uint8Array, slot: Uint8Array, value: Uint8Array]>();
  private cleared = new Set<string>();
  private code = new Set<string>();

  /** Forgets the previous diff (a new anchor: the next diff is compared with the empty one). */
  reset(): void {
    this.accounts = new Map();
    this.storage = new Map();
    this.cleared = new Set();
    this.code = new Set();
  }

  /** The change from the previous diff to `diff`; `diff` becomes the previous one. */
  next(diff: PendingStateDiff): StateDelta {
    const out: StateDelta = { accounts: [], storage: [], cleared: [], code: [], droppedAccounts: [], droppedStorage: [] };
    const cleared = new Set<string>();
    const newlyCleared = new Set<string>();
    for (const a of diff.cleared) {
      const k = hex(a);
      cleared.add(k);
      if (!this.cleared.has(k)) {
        newlyCleared.add(k);
        out.cleared.push(a);
      }
    }
    const accounts = new Map<string, Uint8Array | null>();
    for (const [a, rlp] of diff.accounts) {
      const k = hex(a);
      accounts.set(k, rlp);
      if (!same(this.accounts.get(k), rlp)) out.accounts.push([a, rlp]);
    }
    for (const k of this.accounts.keys()) if (!accounts.has(k)) out.droppedAccounts.push(Buffer.from(k, "hex"));
    const storage = new Map<string, [Uint8Array, Uint8Array, Uint8Array]>();
    for (const e of diff.storage) {
      const ak = hex(e[0]);
      const k = ak + hex(e[1]);
      storage.set(k, e);
      // A wiped account's earlier slots are dropped by the fold: its current slots are sent again.
      if (newlyCleared.has(ak) || !same(this.storage.get(k)?.[2], e[2])) out.storage.push(e);
    }
    for (const [k, [a, slot]] of this.storage) if (!storage.has(k) && !newlyCleared.has(hex(a))) out.droppedStorage.push([a, slot]);
    for (const [h, c] of diff.code) {
      const k = hex(h);
      if (!this.code.has(k)) {
        this.code.add(k);
        out.code.push([h, c]);
      }
    }
    this.accounts = accounts;
    this.storage = storage;
    this.cleared = cleared;
    return out;
  }
}
