/**
 * Flashblock sequencing state machine: decides, for each incoming flashblock and each canonical block, what
 * happens to the pending (pre-confirmed) state. Pure and deterministic — no timers, no I/O; the caller executes.
 *
 * Implements base/base `crates/execution/flashblocks` `FlashblockSequenceValidator` (§2.2 of
 * /work/shared/reference/flashblocks.md, including the newer preflight rules, the `prev_flashblock_id` link check
 * and the hold-ahead cache of PR #973) and the newer canonical reconciliation with `Rebase` (§2.3).
 */
import { keccak256 } from "../util/keccak.js";
import { bytesEqual } from "../util/bytes.js";
import { encodeFlashblock, MAX_FLASHBLOCKS_PER_PAYLOAD, type FlashblocksPayloadV1 } from "./codec.js";
import { MAX_HOLD_AHEAD_BLOCKS } from "./constants.js";

/** Why a frame was dropped without touching the pending state. */
export type DropReason = "block-zero" | "index-too-high" | "base-block-mismatch" | "stale" | "too-far-ahead" | "waiting-for-first";
/** Why the pending state was cleared (the offending frame is not applied). */
export type ClearReason =
  | "non-sequential-gap"
  | "non-sequential-predecessor"
  | "invalid-new-block-index"
  | "parent-hash-mismatch"
  | "conflicting-duplicate";

/** Outcome of offering one flashblock. `append` and `replaced` mean: (re)build pending state with this frame. */
type Decision =
  | { kind: "append" }
  | { kind: "duplicate" }
  | { kind: "held" }
  | { kind: "dropped"; reason: DropReason }
  | { kind: "cleared"; reason: ClearReason }
  | { kind: "replaced" };

/** Canonical block as seen by the sequencer: number, hash and ordered transaction hashes. */
interface CanonicalBlock {
  number: bigint;
  hash: Uint8Array;
  txHashes: Uint8Array[];
}

/** Outcome of a canonical block; `replay` lists held frames (in order) to offer again now that their parent is canonical. */
interface CanonicalOutcome {
  kind: "catch-up" | "rebase" | "reorg" | "ignore" | "continue";
  replay: FlashblocksPayloadV1[];
}

/** The frames of one pending block, in index order (index 0 first). */
interface PendingBlock {
  number: bigint;
  payloadId: Uint8Array;
  frames: FlashblocksPayloadV1[];
  /** Hash the executor recorded for this pending block (see `recordPendingBlockHash`), checked by the next block's parent_hash. */
  recordedHash?: Uint8Array;
}

function heldKey(block: bigint, index: number): string {
  return `${block}-${index}`;
}

function sameContent(a: FlashblocksPayloadV1, b: FlashblocksPayloadV1): boolean {
  return encodeFlashblock(a, { compress: false }) === encodeFlashblock(b, { compress: false });
}

/** Hash of an EIP-2718 encoded transaction (keccak-256 of its envelope bytes, deposits included). */
function txHash(raw: Uint8Array): Uint8Array {
  return keccak256(raw);
}

/**
 * The flashblock sequencer. Feed every decoded flashblock to `offer` and every canonical block to `onCanonical`,
 * in arrival order; it keeps the pending blocks (possibly several consecutive ones) and the hold-ahead cache.
 */
export class FlashblockSequencer {
  private blocks: PendingBlock[] = [];
  private readonly held = new Map<string, FlashblocksPayloadV1>();

  /** Pending blocks, oldest first (empty when there is no pending state). */
  pendingBlocks(): readonly PendingBlock[] {
    return this.blocks;
  }

  /** Frames of the latest pending block, in index order (empty when none). */
  pendingFrames(): readonly FlashblocksPayloadV1[] {
    return this.blocks.at(-1)?.frames ?? [];
  }

  /** (block, index) of the latest accepted frame, or undefined with no pending state. */
  latest(): { block: bigint; index: number } | undefined {
    const last = this.blocks.at(-1);
    if (!last) return undefined;
    return { block: last.number, index: last.frames.length - 1 };
  }

  /** Held frames, ordered by (block, index). */
  heldFrames(): FlashblocksPayloadV1[] {
    return [...this.held.values()].sort((a, b) =>
      a.metadata.blockNumber === b.metadata.blockNumber ? a.index - b.index : a.metadata.blockNumber < b.metadata.blockNumber ? -1 : 1,
    );
  }

  /**
   * Records the executor's hash of pending block `number`; the next block's index 0 must then carry it as
   * `base.parent_hash` (newer base/base `ParentHashMismatch`). Without a record that check is skipped.
   */
  recordPendingBlockHash(number: bigint, hash: Uint8Array): void {
    const b = this.blocks.find((x) => x.number === number);
    if (b) b.recordedHash = hash;
  }

  /** Drops all pending state (held frames are kept). */
  clear(): void {
    this.blocks = [];
  }

  /** Decides what an incoming flashblock does (§2.2 preflight, duplicate/replace, predecessor link, sequencing table, hold). */
  offer(fb: FlashblocksPayloadV1, canonicalTip: { number: bigint; hash: Uint8Array }): Decision {
    const b = fb.metadata.blockNumber;
    const i = fb.index;
    // Preflight (newer validation.rs).
    if (b === 0n) return { kind: "dropped", reason: "block-zero" };
    if (i >= MAX_FLASHBLOCKS_PER_PAYLOAD) return { kind: "dropped", reason: "index-too-high" };
    if (i === 0 && fb.base?.blockNumber !== b) return { kind: "dropped", reason: "base-block-mismatch" };
    if (b <= canonicalTip.number) return { kind: "dropped", reason: "stale" };

    const last = this.blocks.at(-1);
    if (!last) return this.offerWithoutPending(fb, canonicalTip);
    const B = last.number;
    const I = last.frames.length - 1;

    if (b === B && i === I) {
      if (bytesEqual(fb.payloadId, last.payloadId) && sameContent(fb, last.frames[I]!)) return { kind: "duplicate" };
      if (i === 0 && !bytesEqual(fb.payloadId, last.payloadId)) return this.replace(fb, last);
      return this.clearWith("conflicting-duplicate");
    }
    if (b === B && i === 0 && !bytesEqual(fb.payloadId, last.payloadId)) return this.replace(fb, last);

    const prev = fb.metadata.prevFlashblockId;
    if (prev && (prev.block !== 0n || prev.index !== 0) && (prev.block !== B || prev.index !== I)) {
      return this.clearWith("non-sequential-predecessor");
    }
    if (b === B && i === I + 1) {
      last.frames.push(fb);
      return { kind: "append" };
    }
    if (b === B + 1n && i === 0) {
      if (last.recordedHash && !bytesEqual(fb.base!.parentHash, last.recordedHash)) return this.clearWith("parent-hash-mismatch");
      this.blocks.push({ number: b, payloadId: fb.payloadId, frames: [fb] });
      return { kind: "append" };
    }
    if (b === B) return this.clearWith("non-sequential-gap");
    return this.clearWith("invalid-new-block-index");
  }

  /** Rule 1 (no pending state) plus the hold-ahead cache for frames whose parent is not canonical yet. */
  private offerWithoutPending(fb: FlashblocksPayloadV1, tip: { number: bigint; hash: Uint8Array }): Decision {
    const b = fb.metadata.blockNumber;
    const i = fb.index;
    if (b - 1n > tip.number) {
      if (b - tip.number > MAX_HOLD_AHEAD_BLOCKS) return { kind: "dropped", reason: "too-far-ahead" };
      if (i > 0 && !this.held.has(heldKey(b, i - 1))) return { kind: "dropped", reason: "waiting-for-first" };
      this.held.set(heldKey(b, i), fb);
      return { kind: "held" };
    }
    if (i > 0) return { kind: "dropped", reason: "waiting-for-first" };
    if (!bytesEqual(fb.base!.parentHash, tip.hash)) return { kind: "cleared", reason: "parent-hash-mismatch" };
    this.blocks = [{ number: b, payloadId: fb.payloadId, frames: [fb] }];
    return { kind: "append" };
  }

  /** A new payload_id at index 0 of the latest block: a new build attempt replaces that block's frames. */
  private replace(fb: FlashblocksPayloadV1, last: PendingBlock): Decision {
    last.payloadId = fb.payloadId;
    last.frames = [fb];
    delete last.recordedHash;
    return { kind: "replaced" };
  }

  private clearWith(reason: ClearReason): Decision {
    this.blocks = [];
    return { kind: "cleared", reason };
  }

  /**
   * Reconciles pending state with canonical block N (newer base/base `validation.rs` with Rebase, §2.3), in priority
   * order: N < anchor → ignore; N > latest → catch-up; pending txs of N ≠ canonical txs → reorg (clear);
   * N == latest → catch-up; N == anchor → verify the pending parent hash (mismatch → reorg) else continue;
   * earliest ≤ N < latest → rebase (drop blocks ≤ N; N+1's parent_hash must equal hash(N), else reorg).
   * Held frames ≤ N are discarded; those forming a run from N+1 (each block starting at index 0) are returned for replay.
   */
  onCanonical(block: CanonicalBlock): CanonicalOutcome {
    const kind = this.reconcile(block);
    return { kind, replay: this.takeReplay(block.number) };
  }

  private reconcile(block: CanonicalBlock): CanonicalOutcome["kind"] {
    const n = block.number;
    const earliest = this.blocks[0];
    const last = this.blocks.at(-1);
    if (!earliest || !last) return "ignore";
    const anchor = earliest.number - 1n;
    if (n < anchor) return "ignore";
    if (n > last.number) return this.catchUp();
    const pendingN = this.blocks.find((x) => x.number === n);
    if (pendingN && !this.sameTxs(pendingN, block.txHashes)) {
      this.blocks = [];
      return "reorg";
    }
    if (n === last.number) return this.catchUp();
    if (n === anchor) {
      if (!bytesEqual(earliest.frames[0]!.base!.parentHash, block.hash)) {
        this.blocks = [];
        return "reorg";
      }
      return "continue";
    }
    this.blocks = this.blocks.filter((x) => x.number > n);
    if (!bytesEqual(this.blocks[0]!.frames[0]!.base!.parentHash, block.hash)) {
      this.blocks = [];
      return "reorg";
    }
    return "rebase";
  }

  private catchUp(): "catch-up" {
    this.blocks = [];
    return "catch-up";
  }

  private sameTxs(p: PendingBlock, canonical: Uint8Array[]): boolean {
    const pending = p.frames.flatMap((f) => f.diff.transactions);
    return pending.length === canonical.length && pending.every((raw, k) => bytesEqual(txHash(raw), canonical[k]!));
  }

  private takeReplay(n: bigint): FlashblocksPayloadV1[] {
    const ordered = this.heldFrames();
    for (const f of ordered) if (f.metadata.blockNumber <= n) this.held.delete(heldKey(f.metadata.blockNumber, f.index));
    const replay: FlashblocksPayloadV1[] = [];
    let expectBlock = n + 1n;
    let expectIndex = 0;
    for (const f of ordered) {
      if (f.metadata.blockNumber <= n) continue;
      if (f.metadata.blockNumber === expectBlock && f.index === expectIndex) {
        expectIndex++;
      } else if (f.metadata.blockNumber === expectBlock + 1n && f.index === 0 && expectIndex > 0) {
        expectBlock++;
        expectIndex = 1;
      } else {
        break;
      }
      replay.push(f);
    }
    for (const f of replay) this.held.delete(heldKey(f.metadata.blockNumber, f.index));
    return replay;
  }
}
