/**
 * Counters of the flashblocks worker, in shared memory: prom-client registries are per
 * thread, so the worker bumps Int32 slots of a SharedArrayBuffer and the main thread's metrics
 * read them at scrape time (`metrics.ts`). One writer; readers only load.
 */
import type { ClearReason, DropReason } from "./sequence.js";
import type { BuildFailure, DiffMismatch } from "./pendingBuilder.js";
import type { DisconnectReason } from "./streamClient.js";

/** Why a frame was rejected before or during execution (the `reason` label of `basalt_flashblocks_rejected_total`). */
export type RejectReason = "malformed" | "oversize" | BuildFailure | "snapshot-too-large";

export const DROP_REASONS: readonly DropReason[] = ["block-zero", "index-too-high", "base-block-mismatch", "stale", "too-far-ahead", "waiting-for-first"];
export const CLEAR_REASONS: readonly ClearReason[] = [
  "non-sequential-gap",
  "non-sequential-predecessor",
  "invalid-new-block-index",
  "parent-hash-mismatch",
  "conflicting-duplicate",
];
export const REJECT_REASONS: readonly RejectReason[] = ["malformed", "oversize", "execution", "decode", "parent-unknown", "not-next", "snapshot-too-large"];
export const MISMATCH_FIELDS: readonly DiffMismatch["field"][] = ["block_hash", "receipts_root", "gas_used", "logs_bloom"];
export const DISCONNECT_REASONS: readonly DisconnectReason[] = ["connect-failed", "ping-timeout", "closed", "error"];
/** Outcomes of canonical blocks reconciled with pending state. */
export const CANONICAL_OUTCOMES = ["catch-up", "rebase", "reorg", "ignore", "continue"] as const;

/** Named single slots. */
const SCALARS = ["received", "applied", "duplicate", "held", "replaced", "connected", "pendingBlock", "pendingIndex", "transactionsExecuted", "evmFallbacks", "idleCollections"] as const;
type Scalar = (typeof SCALARS)[number];

/** Slot layout: scalars, then one slot per label value of each labelled counter. */
class Layout {
  readonly index = new Map<string, number>();
  constructor() {
    let i = 0;
    for (const s of SCALARS) this.index.set(s, i++);
    for (const r of DROP_REASONS) this.index.set(`dropped:${r}`, i++);
    for (const r of CLEAR_REASONS) this.index.set(`cleared:${r}`, i++);
    for (const r of REJECT_REASONS) this.index.set(`rejected:${r}`, i++);
    for (const r of MISMATCH_FIELDS) this.index.set(`mismatch:${r}`, i++);
    for (const r of DISCONNECT_REASONS) this.index.set(`disconnect:${r}`, i++);
    for (const r of CANONICAL_OUTCOMES) this.index.set(`canonical:${r}`, i++);
  }
  get size(): number {
    return this.index.size;
  }
  slot(name: string): number {
    const i = this.index.get(name);
    if (i === undefined) throw new RangeError(`no flashblocks stats slot ${name}`);
    return i;
  }
}
const LAYOUT = new Layout();

/** Allocates the shared counters. */
export function allocateIngestStats(): SharedArrayBuffer {
  return new SharedArrayBuffer(LAYOUT.size * 4);
}

/** Counter access over the shared slots (both sides). */
export class IngestStats {
  private readonly slots: Int32Array;
  constructor(sab: SharedArrayBuffer) {
    this.slots = new Int32Array(sab);
  }
  inc(name: Scalar | `${"dropped" | "cleared" | "rejected" | "mismatch" | "disconnect" | "canonical"}:${string}`, by = 1): void {
    Atomics.add(this.slots, LAYOUT.slot(name), by);
  }
  set(name: Scalar, value: number): void {
    Atomics.store(this.slots, LAYOUT.slot(name), value);
  }
  get(name: string): number {
    return Atomics.load(this.slots, LAYOUT.slot(name));
  }
}
