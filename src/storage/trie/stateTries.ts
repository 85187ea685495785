/**
 * The state's tries — the account trie and one storage trie per account — as overlays over a
 * source: what an execution's state root computations write into, and, once the block is
 * executed, its trie diff (committed with the block by the chain store).
 */
import { EMPTY_TRIE_SOURCE, TrieOverlay, type TrieSource } from "./source.js";
import { toHex } from "../../util/bytes.js";

/** Where a state's existing trie nodes are read from. */
export interface StateTrieSource {
  /** The account trie. */
  readonly account: TrieSource;
  /** The storage trie of the account with this hashed address. */
  storage(hashedAddress: Uint8Array): TrieSource;
}

/** The overlays of one state's tries. */
export class StateTries {
  readonly account: TrieOverlay;
  /** Storage trie overlays by hex hashed address. */
  readonly storage = new Map<string, TrieOverlay>();

  constructor(readonly source: StateTrieSource) {
    this.account = new TrieOverlay(source.account);
  }

  /** The overlay of an account's storage trie (created on first use). */
  storageOf(hashedAddress: Uint8Array): TrieOverlay {
    const k = toHex(hashedAddress);
    let o = this.storage.get(k);
    if (o === undefined) {
      o = new TrieOverlay(this.source.storage(hashedAddress));
      this.storage.set(k, o);
    }
    return o;
  }

  /** Drops an account's whole storage trie (its storage was wiped): it refills from the empty root. */
  wipeStorage(hashedAddress: Uint8Array): void {
    this.storageOf(hashedAddress).wipe();
  }

  /** Forgets an account's storage trie changes (a wipe undone): it reads the source's trie again. */
  resetStorage(hashedAddress: Uint8Array): void {
    this.storage.set(toHex(hashedAddress), new TrieOverlay(this.source.storage(hashedAddress)));
  }

  /** Nodes written (stored nodes, leaves and removals) over every trie: a size for metrics and logs. */
  entryCount(): number {
    let n = this.account.entries.size;
    for (const o of this.storage.values()) n += o.entries.size;
    return n;
  }
}

/** The tries of a state built from nothing, in memory (genesis, state tests): every node lives in the overlays. */
export function emptyStateTries(): StateTries {
  return new StateTries({ account: EMPTY_TRIE_SOURCE, storage: () => EMPTY_TRIE_SOURCE });
}
