/**
 * Where a trie's existing nodes are read from, by path: the chain store's path-keyed tables and
 * flat state (`storage/stateTries.ts`), an in-memory overlay of a block's changes over them
 * ({@link TrieOverlay}), a witness or a proofs store (by hash or versioned path).
 */

/**
 * What the parent's encoding says of a child it references by hash: a stored node (a branch or
 * extension: its record is in the trie table), a leaf (rebuilt from the flat state), or unknown
 * (the root; a source that reads by hash ignores the hint).
 */
export type NodeHint = "stored" | "leaf" | "unknown";

/**
 * A node as a source returns it: a stored node's RLP and, for a branch, which children are stored
 * nodes (bit i for nibble i; a source that cannot tell sets every bit: the hint only steers a
 * read); or a leaf as its full hashed key and its value (as the trie holds it: an account's RLP,
 * a storage word's RLP). A source reading RLP by hash may return a leaf's RLP as a stored node.
 * Nodes an update writes carry their hash, computed for their parent's reference.
 */
export type TrieNodeRead =
  | { rlp: Uint8Array; storedMask: number; kind?: StoredKind; hash?: Uint8Array; leafKey?: undefined; value?: undefined }
  | { leafKey: Uint8Array; value: Uint8Array; rlp?: undefined; storedMask?: undefined; kind?: undefined };

/** What a stored node is (set on the nodes an update writes; a source reading RLP may leave it out). */
type StoredKind = "branch" | "extension";

/** Read access to one trie's nodes. */
export interface TrieSource {
  /**
   * The node at `path` (nibbles from the root), which its parent references by `hash` (the state
   * root for the root), or undefined when the source does not hold it.
   */
  node(path: Uint8Array, hash: Uint8Array, hint: NodeHint): TrieNodeRead | undefined;
}

/** A source holding nothing: the tries of a state built from scratch (genesis), a wiped storage trie. */
export const EMPTY_TRIE_SOURCE: TrieSource = { node: () => undefined };

/** The string form of a path used as a map key (one char per nibble). */
export function pathString(path: ArrayLike<number>): string {
  let s = "";
  for (let i = 0; i < path.length; i++) s += String.fromCharCode(97 + path[i]!);
  return s;
}

/** The path of a {@link pathString}. */
export function pathOfString(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) - 97;
  return out;
}

/**
 * One trie's changes over a base source, in memory: the nodes of the trie as the updates left it
 * at every path they touched (`null`: no node there any more), read before the base. The
 * entries are the trie's diff against the base: what a block's commit writes to the trie table
 * (stored nodes put, other entries deleted where the base had a stored node), what a historical
 * view answers from, what the proofs store versions.
 */
export class TrieOverlay implements TrieSource {
  /** Path string → the node there now, or null for none. */
  readonly entries = new Map<string, TrieNodeRead | null>();
  /** Paths where the base returned a stored node (a commit deletes the ones no longer holding one). */
  readonly baseStored = new Set<string>();
  /** The whole base trie was dropped (an account's storage wiped): nothing reads through to the base. */
  wiped = false;
  /**
   * The first node read from the base at each path (with `trackReads`): the base's node where an
   * entry now differs — a diff's "before" side (the proofs store's step back over a block).
   */
  readonly baseReads: Map<string, TrieNodeRead> | undefined;

  constructor(
    readonly base: TrieSource,
    opts: { trackReads?: boolean } = {},
  ) {
    this.baseReads = opts.trackReads === true ? new Map() : undefined;
  }

  node(path: Uint8Array, hash: Uint8Array, hint: NodeHint): TrieNodeRead | undefined {
    const k = pathString(path);
    const e = this.entries.get(k);
    if (e !== undefined) return e ?? undefined;
    if (this.wiped) return undefined;
    const r = this.base.node(path, hash, hint);
    if (r !== undefined && r.rlp !== undefined) this.baseStored.add(k);
    if (r !== undefined && this.baseReads !== undefined && !this.baseReads.has(k)) this.baseReads.set(k, r);
    return r;
  }

  /** Drops the whole trie (before re-filling it from the empty root): a commit deletes every stored node of the base trie. */
  wipe(): void {
    this.entries.clear();
    this.baseStored.clear();
    this.wiped = true;
  }
}
