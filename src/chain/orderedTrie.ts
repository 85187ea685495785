/**
 * Root of an "ordered" Merkle-Patricia trie — keys rlp(0), rlp(1), … — as every block's
 * transactions, receipts and withdrawals tries are, computed synchronously from the sorted
 * leaves (the hash-builder method of reth's `ordered_trie_root`) instead of through a general
 * trie with a node database.
 *
 * Flashblocks re-derive the roots of a growing block every 200 ms; {@link OrderedTrieCache}
 * keeps each leaf's encoding (it depends only on the item and its depth, which a growing
 * ordered trie rarely changes), so a new frame hashes its new leaves and the branch nodes
 * above them. Profile that drove it: `bench/flashblocks.ts` (November 2026), where
 * @ethereumjs/mpt insertions were 1.1 ms of a 3.7 ms frame.
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

/** Leaf encodings by (item, depth) for a trie that only grows; values must not change. */
export class OrderedTrieCache {
  private readonly keys: Uint8Array[] = [];
  private readonly leaves = new Map<number, Uint8Array>();
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
}

/** The sort order of the keys: items by the bytes of rlp(i). */
function sortedItems(n: number, cache: OrderedTrieCache): number[] {
  const items = Array.from({ length: n }, (_, i) => i);
  const cmp = (a: number, b: number): number => {
    const x = cache.keyOf(a);
    const y = cache.keyOf(b);
    for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! - y[k]!;
    return x.length - y.length;
  };
  return items.sort(cmp);
}

/** RLP of the node holding `items[lo..hi)` (sorted, sharing `depth` leading nibbles). */
function encodeNode(items: number[], lo: number, hi: number, depth: number, values: readonly Uint8Array[], cache: OrderedTrieCache): Uint8Array {
  if (hi - lo === 1) return cache.leaf(items[lo]!, depth, values[items[lo]!]!);
  // Longest common prefix beyond `depth`: first and last keys bound it (sorted).
  const first = cache.keyOf(items[lo]!);
  const last = cache.keyOf(items[hi - 1]!);
  let cp = depth;
  while (cp < first.length && cp < last.length && first[cp] === last[cp]) cp++;
  if (cp > depth) {
    const child = encodeNode(items, lo, hi, cp, values, cache);
    return RLP.encode([hexPrefix(first, depth, cp, false), reference(child)] as never);
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
    branch[nibble] = reference(encodeNode(items, start, end, depth + 1, values, cache));
    start = end;
  }
  return RLP.encode(branch as never);
}

/** Root of the trie mapping rlp(i) → `values[i]`. Pass the same cache while `values` only grows. */
export function orderedTrieRoot(values: readonly Uint8Array[], cache: OrderedTrieCache = new OrderedTrieCache()): Uint8Array {
  if (values.length === 0) return KECCAK256_RLP;
  const items = sortedItems(values.length, cache);
  return keccak256(encodeNode(items, 0, items.length, 0, values, cache));
}
