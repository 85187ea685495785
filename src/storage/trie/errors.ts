/**
 * Errors of the path-keyed state tries (update, build, verify, proofs): one class, stable codes.
 */
import { TypedError } from "../../util/errors.js";

/** Stable codes of {@link StateTrieError}. */
export const StateTrieErrorCode = {
  /** A node the operation needs is not in the state (a foreign root, a pruned state, a corrupt table). */
  MISSING_NODE: "STATE_TRIE_MISSING_NODE",
  /** A stored node or record does not decode as a trie node. */
  BAD_NODE: "STATE_TRIE_BAD_NODE",
  /** Leaves given to a builder out of ascending key order (or twice). */
  UNSORTED_LEAVES: "STATE_TRIE_UNSORTED_LEAVES",
  /** A key that is not a 32-byte hashed key. */
  BAD_KEY: "STATE_TRIE_BAD_KEY",
  /** An empty leaf value given to a builder (a trie holds no empty values: writing one deletes the key). */
  EMPTY_VALUE: "STATE_TRIE_EMPTY_VALUE",
  /** A builder or a comparison used after its `finish()`. */
  FINISHED: "STATE_TRIE_FINISHED",
  /** Trie nodes given to a comparison out of ascending path-key order (`side`: which stream). */
  UNSORTED_NODES: "STATE_TRIE_UNSORTED_NODES",
} as const;

/**
 * A {@link StateTrieError}'s code with what it names (hashes and keys 0x hex): `where` the trie path
 * concerned; `key` a leaf key (builder) or a path key (comparison); `index` the 0-based position of
 * the refused leaf in the builder's input; `previous` the key before the out-of-order one;
 * `duplicate` whether the key equals the previous one; `length` the key's length in bytes; `side`
 * which stream was out of order, the rebuilt nodes or the stored entries.
 */
type StateTrieErrorType =
  | { code: typeof StateTrieErrorCode.BAD_NODE; where?: string }
  | { code: typeof StateTrieErrorCode.MISSING_NODE; where: string; hash: string }
  | { code: typeof StateTrieErrorCode.BAD_KEY; index: number; length: number }
  | { code: typeof StateTrieErrorCode.EMPTY_VALUE; index: number; key: string }
  | { code: typeof StateTrieErrorCode.UNSORTED_LEAVES; index: number; previous: string; key: string; duplicate: boolean }
  | { code: typeof StateTrieErrorCode.FINISHED }
  | { code: typeof StateTrieErrorCode.UNSORTED_NODES; side: "built" | "stored"; previous: string; key: string };

/** A state trie operation that met something other than what it expected. */
export class StateTrieError extends TypedError<StateTrieErrorType> {}
