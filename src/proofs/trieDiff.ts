/**
 * What changed between two Merkle-Patricia tries, by path: the input of the versioned-by-path
 * store of the historical-proofs extension. That store keeps, for every path (nibbles from the
 * root) of a trie, the node stored there from each block on; a node is stored at a path when its
 * parent references it by hash (its RLP is 32 bytes or more) or when it is the root. Embedded
 * nodes (RLP under 32 bytes) live inside their parent's RLP and have no path entry of their own;
 * they cannot hold a hashed child (a 32-byte hash would not fit), so an embedded subtree holds no
 * stored node at all. The empty trie has no stored node (not even at the root).
 *
 * {@link diffTrie} walks both tries in step from the root, path by path, and skips every subtree
 * whose hash is the same on both sides (the same hash is the same subtree, at the same path): the
 * cost is the changed paths and their neighbours, not the trie. Where the two sides have different
 * shapes at a path (a branch on one side, an extension or a leaf on the other: a branch collapsed,
 * an extension split, a leaf moved up after its sibling's deletion) the walk goes on nibble by
 * nibble through the extension or leaf key, so a path is compared with the same path on the other
 * side whatever node kinds hold it. Where one side has no stored node at or below a path (nothing,
 * a leaf, an embedded node) the other side's stored nodes below it are all reported one-sided.
 *
 * {@link diffState} adds the storage tries of the accounts whose storage root changed, found from
 * the account leaves the walk met (only the changed region's).
 */
import { KECCAK256_RLP } from "@ethereumjs/util";
import { fromHex, to0x } from "../util/bytes.js";
import { TrieProofError, TrieProofErrorCode, malformedNode, pathName } from "./trieErrors.js";
import {
  BRANCH_WIDTH,
  childPath,
  decodeAccount,
  decodeNode,
  extendPath,
  isHashRef,
  sameBytes,
  type ExtensionNode,
  type LeafNode,
  type NodeRef,
  type TrieNode,
} from "./trieNode.js";

/**
 * Reads a trie node's RLP by its keccak256 (the chain store's content-addressed nodes); undefined
 * when unknown. The bytes returned go into the deltas as they are: a store must not reuse their buffer.
 */
export type NodeByHash = (hash: Uint8Array) => Uint8Array | undefined;

/** One path whose stored node differs between two tries. */
export interface NodeDelta {
  /** The path from the root, one nibble a byte (empty for the root). */
  path: Uint8Array;
  /** RLP of the node stored at this path in the first trie; null when none is (nothing, or an embedded node). */
  before: Uint8Array | null;
  /** RLP of the node stored at this path in the second trie; null when none is. */
  after: Uint8Array | null;
}

/** The changes of one account's storage trie. */
export interface StorageDiff {
  /** keccak256 of the account's address: the account's key in the account trie. */
  hashedAddress: Uint8Array;
  /** The storage trie's changed paths (from the empty trie when the account or its storage is new, to it when gone). */
  deltas: NodeDelta[];
}

/** The changes between two states: the account trie's, and those of every storage trie whose root changed. */
export interface StateDiff {
  account: NodeDelta[];
  /** One entry per account whose storage root differs (created, deleted or changed), by hashed address. */
  storage: StorageDiff[];
}

/**
 * Every path whose stored node differs between the trie of root `before` and the trie of root
 * `after`, with the node's RLP on each side, in path order (a path before the paths it prefixes,
 * nibbles ascending). Subtrees whose hash is the same on both sides are not read. A root of
 * {@link KECCAK256_RLP} is the empty trie. Throws a {@link TrieProofError} `PROOFS_MISSING_NODE`
 * when `get` lacks a node the walk needs.
 */
export function diffTrie(get: NodeByHash, before: Uint8Array, after: Uint8Array): NodeDelta[] {
  return new TrieDiffer(get, undefined).run(before, after);
}

/**
 * The account trie's changes between two state roots, plus, for every account whose storage root
 * differs between them (created, deleted, storage changed or cleared), its storage trie's changes.
 * Accounts are matched by their full hashed key (the leaf's path and key remainder), so a leaf that
 * only moved to another path (a sibling was deleted or added) is not a storage change. Only the
 * account leaves in the changed region are read. Throws like {@link diffTrie}, and a
 * `PROOFS_MALFORMED_NODE` when an account leaf is not an account.
 */
export function diffState(get: NodeByHash, beforeRoot: Uint8Array, afterRoot: Uint8Array): StateDiff {
  const leaves: LeafSides = [new Map(), new Map()];
  const account = new TrieDiffer(get, leaves).run(beforeRoot, afterRoot);
  const [before, after] = leaves;
  const keys = new Set([...before.keys(), ...after.keys()]);
  const storage: StorageDiff[] = [];
  for (const key of [...keys].sort()) {
    const b = before.get(key);
    const a = after.get(key);
    if (b !== undefined && a !== undefined && sameBytes(a, b)) continue; // the same account (maybe moved)
    const rootBefore = storageRootOf(key, b);
    const rootAfter = storageRootOf(key, a);
    if (sameBytes(rootBefore, rootAfter)) continue;
    storage.push({ hashedAddress: fromHex(key), deltas: diffTrie(get, rootBefore, rootAfter) });
  }
  return { account, storage };
}

/** Number of nibbles of an account's key (keccak256 of its address). */
const ACCOUNT_KEY_NIBBLES = 64;

/** Storage root of an account leaf (the empty trie's root when there is no account). */
function storageRootOf(key: string, leaf: Uint8Array | undefined): Uint8Array {
  if (key.length !== ACCOUNT_KEY_NIBBLES) throw malformedNode(key, `an account key of ${key.length} nibbles`);
  return leaf === undefined ? KECCAK256_RLP : decodeAccount(leaf, key).storageRoot;
}

/** Side of a diff: the first trie, the second. */
const BEFORE = 0;
const AFTER = 1;
type Side = typeof BEFORE | typeof AFTER;

/** The values of the leaves met on each side, by full key (one hex digit a nibble). */
type LeafSides = [Map<string, Uint8Array>, Map<string, Uint8Array>];

/**
 * What one trie holds at a path of the walk:
 * - a hash: a stored node starts here;
 * - an embedded node's RLP: it starts here (nothing is stored at or below);
 * - an extension or leaf whose `key` is the rest of its nibbles after this path (the node started
 *   above; nothing is stored here);
 * - undefined: nothing.
 */
type Position = NodeRef | ExtensionNode | LeafNode | undefined;

/** Whether no node is stored at or below a position. */
function holdsNoStoredNode(p: Position): boolean {
  if (p === undefined) return true;
  if (p instanceof Uint8Array) return !isHashRef(p);
  return p.kind === "leaf" || !isHashRef(p.child);
}

/** What follows `n`'s first `count` nibbles: the rest of them, or (all consumed) the extension's child or the leaf's value with no key left. */
function advance(n: ExtensionNode | LeafNode, count: number): Position {
  if (n.kind === "extension") return count === n.key.length ? n.child : { kind: "extension", key: n.key.subarray(count), child: n.child };
  return { kind: "leaf", key: n.key.subarray(count), value: n.value };
}

/** What a node (a branch, or the rest of an extension or leaf) holds at the next nibble `i`. */
function childAt(n: TrieNode, i: number): Position {
  if (n.kind === "branch") return n.children[i];
  return n.key.length > 0 && n.key[0] === i ? advance(n, 1) : undefined;
}

/** Length of the common prefix of two nibble runs. */
function commonPrefix(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function sameOrBothNull(a: Uint8Array | null, b: Uint8Array | null): boolean {
  return a === null || b === null ? a === b : sameBytes(a, b);
}

/** One diff walk: its node source, its output, and (for {@link diffState}) the leaves it met. */
class TrieDiffer {
  private readonly out: NodeDelta[] = [];

  constructor(
    private readonly get: NodeByHash,
    private readonly leaves: LeafSides | undefined,
  ) {}

  run(before: Uint8Array, after: Uint8Array): NodeDelta[] {
    // The root is stored by hash whatever its size; the empty trie has no node.
    const root = (r: Uint8Array): Position => (sameBytes(r, KECCAK256_RLP) ? undefined : r);
    this.pair(new Uint8Array(0), root(before), root(after));
    return this.out;
  }

  /** Compares what both tries hold at `path` and below. */
  private pair(path: Uint8Array, a: Position, b: Position): void {
    if (holdsNoStoredNode(a) || holdsNoStoredNode(b)) {
      // At most one side stores anything here or below: all of it differs.
      this.oneSide(path, a, BEFORE);
      this.oneSide(path, b, AFTER);
      return;
    }
    if (a instanceof Uint8Array && b instanceof Uint8Array && sameBytes(a, b)) return; // the same subtree
    const [rlpA, nodeA] = this.resolve(path, a!, BEFORE);
    const [rlpB, nodeB] = this.resolve(path, b!, AFTER);
    if (!sameOrBothNull(rlpA, rlpB)) this.out.push({ path, before: rlpA, after: rlpB });
    if (nodeA.kind !== "branch" && nodeB.kind !== "branch") {
      // Two runs of nibbles: nothing is stored inside their common prefix, jump over it.
      const common = commonPrefix(nodeA.key, nodeB.key);
      if (common > 0) return this.pair(extendPath(path, nodeA.key, 0, common), advance(nodeA, common), advance(nodeB, common));
    }
    for (let i = 0; i < BRANCH_WIDTH; i++) {
      const ca = childAt(nodeA, i);
      const cb = childAt(nodeB, i);
      if (ca !== undefined || cb !== undefined) this.pair(childPath(path, i), ca, cb);
    }
  }

  /** Reports every node stored at or below `path` on one side (the other side has none there), and collects its leaves. */
  private oneSide(path: Uint8Array, p: Position, side: Side): void {
    if (p === undefined) return;
    if (this.leaves === undefined && holdsNoStoredNode(p)) return;
    let node: TrieNode;
    if (!(p instanceof Uint8Array)) {
      node = p; // the rest of a node met above (its leaf was collected there)
    } else if (isHashRef(p)) {
      const [rlp, n] = this.resolve(path, p, side);
      this.out.push(side === BEFORE ? { path, before: rlp, after: null } : { path, before: null, after: rlp });
      node = n;
    } else {
      node = decodeNode(p, () => pathName(path));
      this.collect(side, path, node);
    }
    if (node.kind === "branch") for (let i = 0; i < BRANCH_WIDTH; i++) this.oneSide(childPath(path, i), node.children[i], side);
    else if (node.kind === "extension") this.oneSide(extendPath(path, node.key), node.child, side);
  }

  /** The stored RLP (null when the node starts above) and decoded node at a position holding a stored node; collects its leaf. */
  private resolve(path: Uint8Array, p: NodeRef | ExtensionNode | LeafNode, side: Side): [Uint8Array | null, TrieNode] {
    if (!(p instanceof Uint8Array)) return [null, p];
    const rlp = this.get(p);
    if (rlp === undefined) throw new TrieProofError({ code: TrieProofErrorCode.MISSING_NODE, hash: to0x(p) }, `trie node ${to0x(p)} is not in the node store`);
    const node = decodeNode(rlp, () => to0x(p));
    this.collect(side, path, node);
    return [rlp, node];
  }

  /** Records the value a node starting at `path` holds (a leaf's, a branch's), under its full key. */
  private collect(side: Side, path: Uint8Array, node: TrieNode): void {
    if (this.leaves === undefined) return;
    if (node.kind === "leaf") this.leaves[side].set(pathName(path) + pathName(node.key), node.value);
    else if (node.kind === "branch" && node.value !== undefined) this.leaves[side].set(pathName(path), node.value);
  }
}
