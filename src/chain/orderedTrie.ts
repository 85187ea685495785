/**
 * Root of an "ordered" Merkle-Patricia trie — keys rlp(0), rlp(1), … — as every block's
 * transactions, receipts and withdrawals tries are, computed synchronously from the sorted
 * leaves (the hash-builder method of reth's `ordered_trie_root`) instead of through a general
 * trie with a node database.
 *
 * Flashblocks re-derive the roots of a growing block every 200 ms; {@link OrderedTrieCache}
 * (or {@link GrowingOrderedTrie}) keeps each leaf's encoding, the items' key order and every
 * subtree's reference between roots, so a new frame encodes its new leaves and hashes only the
 * nodes on their paths. Profiles that drove it: `bench/flashblocks.ts` (November 2026), where
 * @ethereumjs/mpt insertions were 1.1 ms of a 3.7 ms frame; then re-hashing every leaf and
 * branch per root: for a 51-transaction block grown 5 at a time, a root from scratch is ~90 µs,
 * a growing root 25–30 µs per frame.
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP } from "@ethereumjs/util";
import { keccak256 } from "../util/keccak.js";

/** Key of item `i`, as nibbles. */
function keyNibbles(i: number): Uint8Array {
  const key = RLP.encode(i);
  const out = new Uint8Array(key.length * 2);
  for (let k = 0; k < key.length; k++) {
    out[2 * k] = key[k]! >> 4;
    out[2 * k + 1] = key[k]! & 15;
  }
  return out;
}

/** Compact (hex-prefix) encoding of a nibble path (Yellow Paper appendix C). */
function hexPrefix(nibbles: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const len = to - from;
  const odd = len % 2;
  const out = new Uint8Array(1 + (len >> 1));
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let n = from;
  if (odd === 1) out[0] |= nibbles[n++]!;
  for (let k = 1; n < to; k++, n += 2) out[k] = (nibbles[n]! << 4) | nibbles[n + 1]!;
  return out;
}

/** A child reference: the node itself when its RLP is under 32 bytes, else its hash. */
function reference(encoded: Uint8Array): Uint8Array | unknown[] {
  return encoded.length < 32 ? (RLP.decode(encoded) as unknown[]) : keccak256(encoded);
}

/**
 * What a growing ordered trie keeps between roots: each key's nibbles, each leaf's encoding by
 * (item, depth), the items in key order, and the reference (hash, or the node itself when its
 * RLP is under 32 bytes) of every subtree computed so far. A subtree is all items whose keys
 * share a prefix; since items are only added, (its first item in key order, its item count,
 * its depth) identifies it, and its encoding cannot change while those stay the same. A new
 * root then costs its new leaves and the nodes on their paths to the root.
 *
 * The cache checks, by identity, that the values it is given extend the ones it saw (the same
 * `Uint8Array` objects, in order, plus new ones); anything else — a shorter list, a replaced
 * value — clears it. Values must not be mutated in place.
 */
export class OrderedTrieCache {
  private readonly keys: Uint8Array[] = [];
  private readonly leaves = new Map<number, Uint8Array>();
  /** The values of the last {@link sync}. */
  private readonly seen: Uint8Array[] = [];
  /** Indexes of {@link seen} in key order. */
  private readonly order: number[] = [];
  /** Subtree references by {@link subtreeId}. */
  private readonly refs = new Map<number, Uint8Array | unknown[]>();

  keyOf(i: number): Uint8Array {
    let k = this.keys[i];
    if (k === undefined) this.keys[i] = k = keyNibbles(i);
    return k;
  }

  leaf(i: number, depth: number, value: Uint8Array): Uint8Array {
    const id = i * 64 + depth;
    let l = this.leaves.get(id);
    if (l === undefined) {
      const key = this.keyOf(i);
      this.leaves.set(id, (l = RLP.encode([hexPrefix(key, depth, key.length, true), value])));
    }
    return l;
  }

  /** Number of values the cache holds state for. */
  get size(): number {
    return this.seen.length;
  }

  /**
   * Brings the cache up to `values` (which must extend the previous values; otherwise the
   * cache starts over) and returns the item indexes in key order (owned by the cache).
   */
  sync(values: readonly Uint8Array[]): readonly number[] {
    let extends_ = values.length >= this.seen.length;
    for (let i = 0; extends_ && i < this.seen.length; i++) extends_ = this.seen[i] === values[i];
    if (!extends_) this.reset();
    for (let i = this.seen.length; i < values.length; i++) {
      this.seen.push(values[i]!);
      // Binary search of the insertion point among the sorted items (appends are the common case).
      let lo = 0;
      let hi = this.order.length;
      if (hi > 0 && compareKeys(this.keyOf(this.order[hi - 1]!), this.keyOf(i)) < 0) lo = hi;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (compareKeys(this.keyOf(this.order[mid]!), this.keyOf(i)) < 0) lo = mid + 1;
        else hi = mid;
      }
      this.order.splice(lo, 0, i);
    }
    return this.order;
  }

  /** The remembered reference of a subtree, if any. */
  subtree(id: number): Uint8Array | unknown[] | undefined {
    return this.refs.get(id);
  }

  /** Remembers the reference of a subtree. */
  remember(id: number, ref: Uint8Array | unknown[]): void {
    this.refs.set(id, ref);
  }

  private reset(): void {
    this.leaves.clear();
    this.seen.length = 0;
    this.order.length = 0;
    this.refs.clear();
  }
}

/** Byte order of two keys (as nibbles): the trie's sort order. */
function compareKeys(x: Uint8Array, y: Uint8Array): number {
  for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! - y[k]!;
  return x.length - y.length;
}

/** The sort order of the keys: items by the bytes of rlp(i). */
function sortedItems(n: number, cache: OrderedTrieCache): number[] {
  const items = Array.from({ length: n }, (_, i) => i);
  return items.sort((a, b) => compareKeys(cache.keyOf(a), cache.keyOf(b)));
}

/** Identity of the subtree of `count` items from `first` (in key order) at `depth` (see {@link OrderedTrieCache}). */
function subtreeId(first: number, count: number, depth: number): number {
  return (first * 2 ** 22 + count) * 64 + depth;
}

/** Where subtree references are remembered (a cache that tracks its values), or nothing. */
type Memo = OrderedTrieCache | undefined;

/** Reference of the node holding `items[lo..hi)` at `depth`, remembered in `memo` when given. */
function referenceOf(items: readonly number[], lo: number, hi: number, depth: number, values: readonly Uint8Array[], cache: OrderedTrieCache, memo: Memo): Uint8Array | unknown[] {
  if (memo === undefined) return reference(encodeNode(items, lo, hi, depth, values, cache, memo));
  const id = subtreeId(items[lo]!, hi - lo, depth);
  let ref = memo.subtree(id);
  if (ref === undefined) memo.remember(id, (ref = reference(encodeNode(items, lo, hi, depth, values, cache, memo))));
  return ref;
}

/** RLP of the node holding `items[lo..hi)` (sorted, sharing `depth` leading nibbles). */
function encodeNode(items: readonly number[], lo: number, hi: number, depth: number, values: readonly Uint8Array[], cache: OrderedTrieCache, memo: Memo): Uint8Array {
  if (hi - lo === 1) return cache.leaf(items[lo]!, depth, values[items[lo]!]!);
  // Longest common prefix beyond `depth`: first and last keys bound it (sorted).
  const first = cache.keyOf(items[lo]!);
  const last = cache.keyOf(items[hi - 1]!);
  let cp = depth;
  while (cp < first.length && cp < last.length && first[cp] === last[cp]) cp++;
  if (cp > depth) {
    return RLP.encode([hexPrefix(first, depth, cp, false), referenceOf(items, lo, hi, cp, values, cache, memo)] as never);
  }
  const branch: (Uint8Array | unknown[])[] = new Array(17).fill(new Uint8Array(0));
  let start = lo;
  if (cache.keyOf(items[start]!).length === depth) {
    branch[16] = values[items[start]!]!; // a key ending here (not possible for rlp(i) keys, kept for generality)
    start++;
  }
  while (start < hi) {
    const nibble = cache.keyOf(items[start]!)[depth]!;
    let end = start + 1;
    while (end < hi && cache.keyOf(items[end]!)[depth] === nibble) end++;
    branch[nibble] = referenceOf(items, start, end, depth + 1, values, cache, memo);
    start = end;
  }
  return RLP.encode(branch as never);
}

/**
 * Root of the trie mapping rlp(i) → `values[i]`. Pass the same cache while `values` only grows
 * (the same value objects, new ones appended): the root then costs the new leaves and their
 * paths. Without a cache the root is computed from scratch (block import, block building).
 */
export function orderedTrieRoot(values: readonly Uint8Array[], cache?: OrderedTrieCache): Uint8Array {
  if (values.length === 0) return KECCAK256_RLP;
  if (cache === undefined) {
    const fresh = new OrderedTrieCache();
    return keccak256(encodeNode(sortedItems(values.length, fresh), 0, values.length, 0, values, fresh, undefined));
  }
  const items = cache.sync(values);
  return keccak256(encodeNode(items, 0, items.length, 0, values, cache, cache));
}

/**
 * An ordered trie that grows one value at a time (a block under construction: flashblocks),
 * with the root of its current values on demand at the cost of what was added since.
 */
export class GrowingOrderedTrie {
  private readonly values: Uint8Array[] = [];
  private readonly cache = new OrderedTrieCache();
  private cachedRoot: Uint8Array | undefined;

  /** Number of values. */
  get size(): number {
    return this.values.length;
  }

  /** Appends the value of key rlp({@link size}). */
  push(value: Uint8Array): void {
    this.values.push(value);
    this.cachedRoot = undefined;
  }

  /** Root of the trie of the values so far. */
  root(): Uint8Array {
    return (this.cachedRoot ??= orderedTrieRoot(this.values, this.cache));
  }
}
