/**
 * One block's state changes over the proofs store's tries (`./trieStep.ts` per trie): every
 * changed storage trie and the account trie, stepped at once (their reads share one limit), each
 * storage trie's new root checked against the storage root in its account's value, and the
 * account trie's against the state root of the side the step goes to. Nothing is written here:
 * the sync (`./sync.ts`) turns the changed paths into the store's block write or step back.
 */
import type { TrieChange } from "../storage/trie/update.js";
import { to0x } from "../util/bytes.js";
import { ProofsError, ProofsErrorCode } from "./errors.js";
import { ReadLimiter, stepTrie, type PathChange, type PathRead } from "./trieStep.js";
import { sameBytes } from "./trieNode.js";
import type { TrieRef } from "./types.js";
import { PROOFS_SYNC_READ_CONCURRENCY } from "./constants.js";

/** One account's storage trie changes, with its storage roots on both sides (the empty trie's when absent). */
export interface StorageTrieChanges {
  hashedAddress: Uint8Array;
  /** The storage root at the base block (the trie the changes apply to). */
  baseRoot: Uint8Array;
  /** The storage root the changes must give (the account's at the target). */
  targetRoot: Uint8Array;
  /** Hashed slots and their values at the target (RLP of the word; undefined: zero). */
  changes: TrieChange[];
}

/** A block's state changes as trie changes towards one side (after the block, or before it). */
export interface StateChanges {
  /** Hashed addresses and the account's full RLP at the target (undefined: absent). */
  accounts: TrieChange[];
  /** The storage tries that change. */
  storage: StorageTrieChanges[];
}

/** A changed path of one of the state's tries. */
export interface StateNodeChange extends PathChange {
  trie: TrieRef;
}

/** What {@link stepState} gives: the changed paths (account trie first, then storage tries by hashed address) and the reads it made. */
export interface StateStep {
  changes: StateNodeChange[];
  /** Nodes read from the store. */
  reads: number;
  /** Nodes the updates needed that were not prefetched. */
  misses: number;
}

/** What a step over one block needs. */
interface StateStepInput {
  /** The block the step is for (named in errors). */
  block: bigint;
  /** Reads a trie's node at a path at the base block. */
  readAt(trie: TrieRef): PathRead;
  /** The state root at the base block. */
  baseRoot: Uint8Array;
  /** The state root the changes must give. */
  targetRoot: Uint8Array;
  changes: StateChanges;
  /** Reads in flight at most (default {@link PROOFS_SYNC_READ_CONCURRENCY}). */
  concurrency?: number;
}

function rootMismatch(block: bigint, trie: string, expected: Uint8Array, actual: Uint8Array, what: string): ProofsError {
  return new ProofsError(
    { code: ProofsErrorCode.ROOT_MISMATCH, block: block.toString(), trie, expected: to0x(expected), actual: to0x(actual) },
    `block ${block}'s changes applied to the proofs store's ${what} give root ${to0x(actual)}, the main store says ${to0x(expected)}: the proofs store and the main store disagree (nothing was written)`,
  );
}

/**
 * Applies a block's changes to the proofs store's tries at the base block; returns every path
 * whose node differs between the base and the result.
 * @throws ProofsError `PROOFS_ROOT_MISMATCH` when a storage trie's or the account trie's new root is
 *   not the main store's; TrieProofError `PROOFS_INCONSISTENT` when the store lacks a node its tries reference.
 */
export async function stepState(input: StateStepInput): Promise<StateStep> {
  const limiter = new ReadLimiter(input.concurrency ?? PROOFS_SYNC_READ_CONCURRENCY);
  const account: TrieRef = { kind: "account" };
  const storage = [...input.changes.storage].sort((a, b) => Buffer.compare(a.hashedAddress, b.hashedAddress));
  const [accountStep, ...storageSteps] = await Promise.all([
    stepTrie({ read: input.readAt(account), root: input.baseRoot, changes: input.changes.accounts, name: "the account trie" }, limiter),
    ...storage.map((s) =>
      stepTrie({ read: input.readAt({ kind: "storage", hashedAddress: s.hashedAddress }), root: s.baseRoot, changes: s.changes, name: `the storage trie of ${to0x(s.hashedAddress)}` }, limiter),
    ),
  ]);
  storage.forEach((s, i) => {
    const got = storageSteps[i]!.root;
    if (!sameBytes(got, s.targetRoot)) throw rootMismatch(input.block, to0x(s.hashedAddress), s.targetRoot, got, `storage trie of ${to0x(s.hashedAddress)}`);
  });
  if (!sameBytes(accountStep!.root, input.targetRoot)) throw rootMismatch(input.block, "account", input.targetRoot, accountStep!.root, "account trie");
  const changes: StateNodeChange[] = accountStep!.changes.map((c) => ({ trie: account, ...c }));
  storage.forEach((s, i) => {
    const trie: TrieRef = { kind: "storage", hashedAddress: s.hashedAddress };
    for (const c of storageSteps[i]!.changes) changes.push({ trie, ...c });
  });
  let reads = 0;
  let misses = 0;
  for (const s of [accountStep!, ...storageSteps]) {
    reads += s.reads;
    misses += s.misses;
  }
  return { changes, reads, misses };
}

