/**
 * What a canonical block changed in the state, read from the main store for one proofs sync
 * step ({@link StateChanges}): the keys from the block's change set, their values on the side the
 * step goes to from the state history — the end of the block going forward, the end of its
 * parent going back — and each changed storage trie's roots on both sides.
 *
 * The main store keeps change sets and history for its history window only (`--history.blocks`,
 * all of them with `--archive`): a block below its history floor cannot be read, which
 * {@link readBlockChanges} says rather than throwing (backfill stops there; forward sync refuses).
 * Everything is read synchronously, so from one LMDB read snapshot (lmdb-js keeps one read
 * transaction for a synchronous run): a block made canonical, unwound or pruned meanwhile is
 * either wholly seen or not at all.
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP } from "@ethereumjs/util";
import { fullAccountRlp } from "../storage/accountCodec.js";
import type { ChainStore } from "../storage/store.js";
import type { TrieChange } from "../storage/trie/update.js";
import type { StateChanges, StorageTrieChanges } from "./stateStep.js";
import { sameBytes } from "./trieNode.js";
import type { BlockRef } from "./types.js";
import { toHex } from "../util/bytes.js";

/** Which way a step goes over a block: to the state after it (forward sync) or to the one before it (backfill). */
type StepDirection = "forward" | "back";

/** What {@link readBlockChanges} found. */
type BlockChangesRead =
  | { kind: "changes"; changes: StateChanges; accounts: number; slots: number }
  /** The block's history is below the main store's history floor (the lowest block it keeps history of). */
  | { kind: "pruned"; floor: bigint }
  /** The block is no longer the canonical block of its number (a reorg is under way). */
  | { kind: "reorged" };

/** The storage root in an account's slim RLP (the empty trie's when the account is absent or its root empty); a copy. */
function slimStorageRoot(slim: Uint8Array | undefined): Uint8Array {
  if (slim === undefined) return KECCAK256_RLP;
  const root = (RLP.decode(slim) as Uint8Array[])[2]!;
  return root.length === 0 ? KECCAK256_RLP : Uint8Array.from(root);
}

/**
 * Block `block`'s state changes as trie changes towards the state after it (`forward`: values at
 * the end of the block, over the state at the end of its parent) or before it (`back`: values at
 * the end of its parent, over the state at the end of the block).
 */
export function readBlockChanges(store: ChainStore, block: BlockRef, direction: StepDirection): BlockChangesRead {
  const canonical = store.getCanonicalHash(block.number);
  if (canonical === undefined || !sameBytes(canonical, block.hash)) return { kind: "reorged" };
  // The change set of `block` and the history of every block from it on (the values at its parent's end are "before `block`").
  const floor = store.historyFloor();
  if (block.number < floor) return { kind: "pruned", floor };
  const target = direction === "forward" ? block.number : block.number - 1n;
  const base = direction === "forward" ? block.number - 1n : block.number;
  const set = store.changeSetOf(block.number);
  const accounts: TrieChange[] = set.accounts.map((a) => {
    const slim = store.getHistoricalAccount(a, target);
    return { key: a, value: slim === undefined ? undefined : fullAccountRlp(slim) };
  });
  const byAccount = new Map<string, { hashedAddress: Uint8Array; changes: TrieChange[] }>();
  for (const [a, s] of set.slots) {
    const k = toHex(a);
    let entry = byAccount.get(k);
    if (entry === undefined) byAccount.set(k, (entry = { hashedAddress: a, changes: [] }));
    const v = store.getHistoricalStorage(a, s, target);
    entry.changes.push({ key: s, value: v === undefined || v.length === 0 ? undefined : RLP.encode(v) });
  }
  const storage: StorageTrieChanges[] = [];
  for (const { hashedAddress, changes } of byAccount.values()) {
    storage.push({
      hashedAddress,
      baseRoot: slimStorageRoot(store.getHistoricalAccount(hashedAddress, base)),
      targetRoot: slimStorageRoot(store.getHistoricalAccount(hashedAddress, target)),
      changes,
    });
  }
  return { kind: "changes", changes: { accounts, storage }, accounts: accounts.length, slots: set.slots.length };
}
