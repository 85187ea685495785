/**
 * The baseline of the proofs store: every stored node of the state at one block, by path — the
 * account trie's root and hashed nodes, and after each account's leaf its storage trie's. `proofs
 * init` writes them as version 0 before the window is extended backwards.
 *
 * Nodes come from the main store (content-addressed, never deleted: `TrieNodeDb`). The walk is
 * depth-first in key order, so an interrupted baseline resumes by skipping the accounts whose
 * storage tries were already written (account-trie nodes are written again: version-0 writes are
 * idempotent).
 */
import { bytesToHex, KECCAK256_RLP } from "@ethereumjs/util";
import { TrieProofError, TrieProofErrorCode } from "./trieErrors.js";
import type { NodeByHash } from "./trieDiff.js";
import { childPath, decodeAccount, decodeNode, extendPath, isHashRef, sameBytes, type NodeRef } from "./trieNode.js";

/** A stored node of the baseline: its trie (the account trie, or the storage trie of `hashedAddress`), its path (nibbles) and its RLP. */
export interface BaselineNode {
  hashedAddress?: Uint8Array;
  path: Uint8Array;
  node: Uint8Array;
}

/** What {@link walkTrie} meets: a stored node (the root, or a node referenced by hash) or a leaf (with its full key, packed). */
export type TrieItem = { kind: "node"; path: Uint8Array; node: Uint8Array } | { kind: "leaf"; key: Uint8Array; value: Uint8Array };

function packNibbles(nibbles: Uint8Array): Uint8Array {
  const out = new Uint8Array(nibbles.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = (nibbles[2 * i]! << 4) | nibbles[2 * i + 1]!;
  return out;
}

/**
 * Walks the trie of `root` in key order, yielding the root and each node referenced by hash
 * (with its path), and each leaf. A generator, so a caller writing a large trie pauses between
 * batches. Throws `PROOFS_MISSING_NODE` when a referenced node is not in `get`.
 */
export function* walkTrie(get: NodeByHash, root: Uint8Array): Generator<TrieItem> {
  if (sameBytes(root, KECCAK256_RLP)) return;
  yield* visit(get, new Uint8Array(0), root, true);
}

function* visit(get: NodeByHash, path: Uint8Array, ref: NodeRef, top: boolean): Generator<TrieItem> {
  let rlp = ref;
  if (top || isHashRef(ref)) {
    const node = get(ref);
    if (node === undefined) throw new TrieProofError({ code: TrieProofErrorCode.MISSING_NODE, hash: bytesToHex(ref) }, `trie node ${bytesToHex(ref)} is missing from the main store`);
    yield { kind: "node", path, node };
    rlp = node;
  }
  const n = decodeNode(rlp, () => bytesToHex(ref));
  if (n.kind === "branch") {
    for (let i = 0; i < n.children.length; i++) {
      const c = n.children[i];
      if (c !== undefined) yield* visit(get, childPath(path, i), c, false);
    }
  } else if (n.kind === "extension") {
    yield* visit(get, extendPath(path, n.key), n.child, false);
  } else {
    yield { kind: "leaf", key: packNibbles(extendPath(path, n.key)), value: n.value };
  }
}

/**
 * Every stored node of the state at `stateRoot`, in batches of about `batchNodes`, in key order:
 * the account trie's nodes interleaved with each account's storage trie (right after its leaf).
 * `after` (a hashed address) resumes: storage tries of accounts up to and including it are
 * skipped (their account-trie nodes are yielded again; version-0 writes are idempotent).
 * `onBatch` receives the nodes and the hashed address of the last account whose storage trie is
 * complete (the resume marker) and is awaited before the walk continues.
 */
export async function baselineOf(
  get: NodeByHash,
  stateRoot: Uint8Array,
  batchNodes: number,
  onBatch: (nodes: BaselineNode[], lastAccount: Uint8Array | undefined) => Promise<void>,
  after?: Uint8Array,
): Promise<{ nodes: number; accounts: number }> {
  let batch: BaselineNode[] = [];
  let nodes = 0;
  let accounts = 0;
  let lastAccount: Uint8Array | undefined = after;
  for (const item of walkTrie(get, stateRoot)) {
    if (item.kind === "node") {
      batch.push({ path: item.path, node: item.node });
      nodes++;
    } else {
      accounts++;
      if (after === undefined || Buffer.compare(item.key, after) > 0) {
        const root = decodeAccount(item.value, () => bytesToHex(item.key)).storageRoot;
        for (const s of walkTrie(get, root)) {
          if (s.kind !== "node") continue;
          batch.push({ hashedAddress: item.key, path: s.path, node: s.node });
          nodes++;
        }
        lastAccount = item.key;
      }
    }
    if (batch.length >= batchNodes) {
      await onBatch(batch, lastAccount);
      batch = [];
    }
  }
  await onBatch(batch, lastAccount);
  return { nodes, accounts };
}
