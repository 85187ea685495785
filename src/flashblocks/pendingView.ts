/**
 * How the RPC thread sees the pending (pre-confirmed) state: a {@link PendingSource} hands out
 * the current {@link PendingSnapshot} — or nothing, and then every `pending` read answers from
 * the latest sealed block — and {@link PendingStateReader} layers the snapshot's state diff over
 * the canonical anchor's state so balances, nonces, code, storage and calls see the
 * pre-confirmed transactions.
 */
import type { Account } from "@ethereumjs/util";
import { accountFromSlim, type StateReader } from "../execution/state/stateReader.js";
import type { PendingSnapshot, PendingStateDiff } from "./pendingSnapshot.js";

/** The pending state as the RPC methods consume it. */
export interface PendingSource {
  /**
   * The current snapshot, or undefined when there is no pre-confirmation data newer than the
   * canonical head (no stream configured, stream down and caught up, pending cleared): callers
   * then answer from `latest`, never from an older block.
   */
  current(): PendingSnapshot | undefined;
  /** Registers a listener called after each new snapshot (in the RPC thread); returns its removal. */
  onSnapshot(listener: (s: PendingSnapshot) => void): () => void;
  /**
   * When the snapshot last handed to listeners was published to shared memory (the moment
   * requests start reading it; same clock as `receivedAt`) and how long the RPC thread took to
   * decode it, in ms; undefined without a stream.
   */
  readonly lastPublication?: { publishedAt: number; decodeMs: number } | undefined;
}

/**
 * Whether a snapshot still holds pre-confirmed state: its pending block is ahead of the
 * canonical head `headNumber`. A snapshot that is not (the head caught up before the worker
 * cleared it) must not answer `pending`, which is never older than `latest`.
 */
export function isAheadOfHead(s: PendingSnapshot, headNumber: bigint): boolean {
  const last = s.blocks.at(-1);
  return last !== undefined && BigInt(last.number) > headNumber;
}

/** A source with no pre-confirmation data: every `pending` read answers from `latest`. */
export const NO_PENDING: PendingSource = {
  current: () => undefined,
  onSnapshot: () => () => undefined,
};

const EMPTY = new Uint8Array(0);

function key(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

/** Indexed form of a {@link PendingStateDiff}. */
export class PendingStateIndex {
  readonly accounts = new Map<string, Uint8Array | null>();
  readonly storage = new Map<string, Map<string, Uint8Array>>();
  readonly code = new Map<string, Uint8Array>();
  readonly cleared = new Set<string>();

  constructor(diff: PendingStateDiff) {
    for (const a of diff.cleared) this.cleared.add(key(a));
    for (const [a, rlp] of diff.accounts) this.accounts.set(key(a), rlp);
    for (const [a, slot, value] of diff.storage) {
      const k = key(a);
      let m = this.storage.get(k);
      if (m === undefined) this.storage.set(k, (m = new Map()));
      m.set(key(slot), value);
    }
    for (const [h, c] of diff.code) this.code.set(key(h), c);
  }
}

/**
 * The state after the pending transactions: the snapshot's diff over the anchor's state.
 * `stateRoot` is the anchor's (the pending state root is not computed, as on Base).
 */
export class PendingStateReader implements StateReader {
  readonly stateRoot: Uint8Array;
  constructor(
    private readonly base: StateReader,
    private readonly index: PendingStateIndex,
  ) {
    this.stateRoot = base.stateRoot;
  }
  account(address: Uint8Array): Account | undefined {
    const k = key(address);
    if (this.index.accounts.has(k)) {
      const rlp = this.index.accounts.get(k);
      return rlp === null || rlp === undefined ? undefined : accountFromSlim(rlp);
    }
    return this.base.account(address);
  }
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const k = key(address);
    const v = this.index.storage.get(k)?.get(key(slot));
    if (v !== undefined) return v;
    return this.index.cleared.has(k) ? EMPTY : this.base.storage(address, slot);
  }
  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.index.code.get(key(codeHash)) ?? this.base.code(codeHash);
  }
}

const indexes = new WeakMap<PendingSnapshot, PendingStateIndex>();

/** The indexed state diff of a snapshot, built once per snapshot. */
export function pendingStateIndex(s: PendingSnapshot): PendingStateIndex {
  let ix = indexes.get(s);
  if (ix === undefined) indexes.set(s, (ix = new PendingStateIndex(s.state)));
  return ix;
}
