/** Shapes the historical proofs store (`src/proofs/store.ts`) takes and returns. */

/** Which trie a node belongs to: the account trie, or the storage trie of one account. */
export type TrieRef = { kind: "account" } | { kind: "storage"; hashedAddress: Uint8Array };

/** A block by number and hash (hash 32 bytes). */
export interface BlockRef {
  number: bigint;
  hash: Uint8Array;
}

/** The blocks the store can answer for: `[earliest, latest]`; both absent before the baseline is committed. */
export interface ProofsWindow {
  earliest?: BlockRef;
  latest?: BlockRef;
}

/**
 * A trie node of the baseline: the node at nibble path `path` of `trie` (its RLP bytes, never
 * empty) at the block the baseline is taken at.
 */
export interface NodeEntry {
  trie: TrieRef;
  /** nibbles (values 0..15), 0 to 64 of them */
  path: Uint8Array;
  node: Uint8Array;
}

/** A trie node a block wrote: its RLP bytes from that block on, or null when the block removed it. */
export interface NodeChange {
  trie: TrieRef;
  path: Uint8Array;
  node: Uint8Array | null;
}

/**
 * A trie node a block changed, for stepping the window back over that block: the node at the
 * path at the block's parent (`before`) and at the block itself (`after`); null where there is
 * no node.
 */
export interface NodeDelta {
  trie: TrieRef;
  path: Uint8Array;
  before: Uint8Array | null;
  after: Uint8Array | null;
}
