/**
 * Typed errors of the trie algorithms of the historical-proofs extension (the sync steps that
 * update the versioned-by-path store's tries, and the proof walk that reads them). Paths are given
 * as one lower-case hex digit per nibble ("" for the root), hashes as 0x hex.
 */
import { TypedError } from "../util/errors.js";

/** Stable codes of {@link TrieProofError}. */
export const TrieProofErrorCode = {
  /** The versioned-by-path store does not hold, at a path, the node its parent (or the state root) references. */
  INCONSISTENT: "PROOFS_INCONSISTENT",
  /** A stored node does not decode as a trie node (nor an account leaf as an account). */
  MALFORMED_NODE: "PROOFS_MALFORMED_NODE",
  /** A storage slot longer than 32 bytes. */
  INVALID_SLOT: "PROOFS_INVALID_SLOT",
} as const;
/** One of the {@link TrieProofErrorCode} values. */
export type TrieProofErrorCode = (typeof TrieProofErrorCode)[keyof typeof TrieProofErrorCode];

/** A {@link TrieProofError}'s code with its metadata. */
type TrieProofErrorType =
  /** `expected`: the reference (hash) the parent holds; `actual`: the hash of the node found, absent when there is none. */
  | { code: typeof TrieProofErrorCode.INCONSISTENT; path: string; expected: string; actual?: string }
  /** `where`: the node's hash, or the path of the node in a proof walk. */
  | { code: typeof TrieProofErrorCode.MALFORMED_NODE; where: string; reason: string }
  | { code: typeof TrieProofErrorCode.INVALID_SLOT; length: number };

/** A sync step or proof that could not be made from the nodes the store holds. */
export class TrieProofError extends TypedError<TrieProofErrorType> {}

/** A nibble path as the errors name it: one hex digit per nibble, "" for the root. */
export function pathName(path: Uint8Array): string {
  let s = "";
  for (let i = 0; i < path.length; i++) s += path[i]!.toString(16);
  return s;
}

/** What a malformed-node error names (a hash, a path, an account): the name, or how to make it (only made when the error is). */
export type Where = string | (() => string);

/** A `PROOFS_MALFORMED_NODE` error: the node (or account leaf) named by `where` is not what the trie holds. */
export function malformedNode(where: Where, reason: string, cause?: unknown): TrieProofError {
  const name = typeof where === "string" ? where : where();
  return new TrieProofError({ code: TrieProofErrorCode.MALFORMED_NODE, where: name, reason }, `trie node ${name} is malformed: ${reason}`, cause === undefined ? undefined : { cause });
}
