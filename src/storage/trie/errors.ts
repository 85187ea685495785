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

/** A {@link StateTrieErrorCode} value. */
export type StateTrieErrorCodeValue = (typeof StateTrieErrorCode)[keyof typeof StateTrieErrorCode];

/** What a {@link StateTrieError} names (hashes and keys 0x hex); each code sets the fields that apply. */
export interface StateTrieErrorMeta extends Record<string, unknown> {
  /** The trie path concerned. */
  where?: string;
  hash?: string;
  /** The key concerned: a leaf key (builder), a path key (comparison). */
  key?: string;
  /** Builder: the 0-based position of the refused leaf in its input. */
  index?: number;
  /** The key before the out-of-order one (`UNSORTED_LEAVES`, `UNSORTED_NODES`). */
  previous?: string;
  /** `UNSORTED_LEAVES`: the key equals the previous one. */
  duplicate?: boolean;
  /** `BAD_KEY`: the key's length in bytes. */
  length?: number;
  /** `UNSORTED_NODES`: which stream was out of order, the rebuilt nodes or the stored entries. */
  side?: "built" | "stored";
}

/** A {@link StateTrieError}'s code with its metadata. */
type StateTrieErrorType = { code: StateTrieErrorCodeValue } & StateTrieErrorMeta;

/** A state trie operation that met something other than what it expected. */
export class StateTrieError extends TypedError<StateTrieErrorType> {
  constructor(code: StateTrieErrorCodeValue, message: string, meta: StateTrieErrorMeta = {}) {
    super({ code, ...meta }, message);
  }
}
