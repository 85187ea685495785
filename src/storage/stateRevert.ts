/**
 * An older state's tries, from the latest ones: the changes of every block after it reverted
 * in memory (their keys from the change sets, their values from the state history), applied to
 * the latest tries as one batch per trie, the result checked against the older state's root.
 * What an unwind commits (one block back), and what a historical proof, witness or execution
 * reads (several blocks back, never committed).
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP } from "@ethereumjs/util";
import { fullAccountRlp } from "./accountCodec.js";
import { StorageError, StorageErrorCode } from "./errors.js";
import { StoreTrieSource } from "./stateTrieSource.js";
import type { ChainStore } from "./store.js";
import { StateTries, type StateTrieSource } from "./trie/stateTries.js";
import type { TrieSource } from "./trie/source.js";
import { updateTrie, type TrieChange } from "./trie/update.js";
import { bytesEqual, toHex } from "../util/bytes.js";

/** The storage root in a slim account RLP (the empty trie's when absent or empty). */
function storageRootOf(slim: Uint8Array | undefined): Uint8Array {
  if (slim === undefined) return KECCAK256_RLP;
  const root = (RLP.decode(slim) as Uint8Array[])[2]!;
  return root.length === 0 ? KECCAK256_RLP : root;
}

/** An older state's tries (overlays over the latest ones) and its root. */
export interface RevertedState {
  tries: StateTries;
  stateRoot: Uint8Array;
  /** Accounts and slots the revert changed (for metrics and logs). */
  accounts: number;
  slots: number;
  /** The hashed slots of an account changed between the two states. */
  slotsOf(hashedAddress: Uint8Array): Uint8Array[];
}

/**
 * The tries of the state after canonical block `target`, from the store's latest state (block
 * `head`, root `headRoot`), checked against `targetRoot`.
 * @throws StorageError `STORAGE_HISTORY_PRUNED` when the history of a block in between is no longer kept;
 *   `STORAGE_REVERT_MISMATCH` when the result is not `targetRoot` (a corrupt store).
 */
export function revertState(store: ChainStore, head: { number: bigint; stateRoot: Uint8Array }, target: { number: bigint; stateRoot: Uint8Array }): RevertedState {
  const floor = store.historyFloor();
  if (target.number + 1n < floor) {
    throw new StorageError({ code: StorageErrorCode.HISTORY_PRUNED, number: target.number.toString(), floor: floor.toString() }, `the state of block ${target.number} needs the state history of block ${target.number + 1n}, but history is kept from block ${floor} (--history.blocks; --archive keeps all)`);
  }
  const accounts = new Map<string, Buffer>();
  const slots = new Map<string, Map<string, [Buffer, Buffer]>>();
  for (let n = target.number + 1n; n <= head.number; n++) {
    const cs = store.changeSetOf(n);
    for (const a of cs.accounts) accounts.set(toHex(a), a);
    for (const [a, s] of cs.slots) {
      const k = toHex(a);
      let m = slots.get(k);
      if (m === undefined) slots.set(k, (m = new Map()));
      m.set(toHex(s), [a, s]);
    }
  }
  const tries = new StateTries(new StoreTrieSource(store));
  let slotCount = 0;
  // Storage tries first: an account's leaf holds its storage root.
  for (const [k, m] of slots) {
    const hashedAddress = Buffer.from(k, "hex");
    const changes: TrieChange[] = [];
    for (const [a, s] of m.values()) {
      const v = store.getHistoricalStorage(a, s, target.number);
      changes.push({ key: s, value: v === undefined || v.length === 0 ? undefined : RLP.encode(v) });
    }
    slotCount += changes.length;
    const root = updateTrie(tries.storageOf(hashedAddress), storageRootOf(store.getAccount(hashedAddress)), changes);
    const want = storageRootOf(store.getHistoricalAccount(hashedAddress, target.number));
    if (!bytesEqual(root, want)) {
      throw new StorageError({ code: StorageErrorCode.REVERT_MISMATCH, number: target.number.toString() }, `reverting the storage of account 0x${k} to block ${target.number} gave root 0x${toHex(root)}, its account there says 0x${toHex(want)}: the store is inconsistent (re-sync or restore a snapshot)`);
    }
  }
  const changes: TrieChange[] = [];
  for (const a of accounts.values()) {
    const v = store.getHistoricalAccount(a, target.number);
    changes.push({ key: a, value: v === undefined ? undefined : fullAccountRlp(v) });
  }
  const stateRoot = updateTrie(tries.account, head.stateRoot, changes);
  if (!bytesEqual(stateRoot, target.stateRoot)) {
    throw new StorageError({ code: StorageErrorCode.REVERT_MISMATCH, number: target.number.toString() }, `reverting the state from block ${head.number} to block ${target.number} gave root 0x${toHex(stateRoot)}, the header says 0x${toHex(target.stateRoot)}: the store is inconsistent (re-sync or restore a snapshot)`);
  }
  return {
    tries,
    stateRoot,
    accounts: accounts.size,
    slots: slotCount,
    slotsOf: (hashedAddress) => [...(slots.get(toHex(hashedAddress))?.values() ?? [])].map(([, s]) => s),
  };
}

/** A reverted state's tries as a source to read (proofs, witnesses) or to execute on (a new overlay over it). */
export function revertedSource(r: RevertedState): StateTrieSource {
  const tries = r.tries;
  return {
    account: tries.account,
    storage(hashedAddress: Uint8Array): TrieSource {
      return tries.storage.get(toHex(hashedAddress)) ?? tries.source.storage(hashedAddress);
    },
  };
}
