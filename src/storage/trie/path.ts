/**
 * Trie paths and their keys in the path-keyed trie tables (`accountTrie`, `storageTrie`).
 *
 * A path is a sequence of nibbles (0..15), one per byte, from the root: the root's path is
 * empty, a hashed 32-byte key has 64 nibbles. Its **path key** is the nibbles one per byte
 * followed by {@link PATH_KEY_TERMINATOR} (16). Bytewise order of path keys is then the trie's
 * **post-order**: every node's descendants (whose keys start with the node's nibbles, then a
 * nibble below 16) sort before it, and siblings in nibble order. So
 * - a streaming builder, which finishes a node after its whole subtree, emits path keys in
 *   ascending order and can append to the table (LMDB's MDB_APPEND: full pages);
 * - the nodes of a subtree are one contiguous key range: `[nibbles, nibbles ‖ 16]`.
 * Storage tries prefix the path key with the account's hashed address (32 bytes).
 */

/** The byte after a path's nibbles in its key: above every nibble, so a node sorts after its subtree. */
const PATH_KEY_TERMINATOR = 16;
/** Nibbles of a full key (a 32-byte keccak hash). */
export const KEY_NIBBLES = 64;
/** Bytes of a hashed key (keccak-256 of an address or a slot). */
export const HASHED_KEY_BYTES = 32;

/** The nibbles (one per byte) of a byte string, high half first. */
export function toNibbles(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = bytes[i]! >> 4;
    out[2 * i + 1] = bytes[i]! & 0x0f;
  }
  return out;
}

/** Packs an even number of nibbles into bytes (the inverse of {@link toNibbles}). */
export function packNibbles(nibbles: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(nibbles.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = (nibbles[2 * i]! << 4) | nibbles[2 * i + 1]!;
  return out;
}

/** The path key of a path: its nibbles then {@link PATH_KEY_TERMINATOR}; `prefix` (a hashed address) first for a storage trie. */
export function pathKey(path: ArrayLike<number>, prefix?: Uint8Array): Buffer {
  const p = prefix === undefined ? 0 : prefix.length;
  const out = Buffer.allocUnsafe(p + path.length + 1);
  if (prefix !== undefined) out.set(prefix, 0);
  for (let i = 0; i < path.length; i++) out[p + i] = path[i]!;
  out[p + path.length] = PATH_KEY_TERMINATOR;
  return out;
}

/**
 * The key range of a path's subtree, the node at the path included: keys start with the path's
 * nibbles (after `prefix`); `end` is exclusive.
 */
export function subtreeRange(path: ArrayLike<number>, prefix?: Uint8Array): { start: Buffer; end: Buffer } {
  const p = prefix === undefined ? 0 : prefix.length;
  const start = Buffer.allocUnsafe(p + path.length);
  if (prefix !== undefined) start.set(prefix, 0);
  for (let i = 0; i < path.length; i++) start[p + i] = path[i]!;
  const end = Buffer.allocUnsafe(start.length + 1);
  start.copy(end);
  end[start.length] = PATH_KEY_TERMINATOR + 1;
  return { start, end };
}

/**
 * The range of 32-byte hashed keys that start with `path`'s nibbles (after `prefix`): where the
 * flat state holds the leaves under a trie path. `end` is exclusive, undefined when unbounded.
 */
export function hashedKeyRange(path: ArrayLike<number>, prefix?: Uint8Array): { start: Buffer; end: Buffer | undefined } {
  const p = prefix === undefined ? 0 : prefix.length;
  const start = Buffer.alloc(p + HASHED_KEY_BYTES);
  if (prefix !== undefined) start.set(prefix, 0);
  for (let i = 0; i < path.length; i++) {
    const b = p + (i >> 1);
    start[b] = (i & 1) === 0 ? path[i]! << 4 : start[b]! | path[i]!;
  }
  // The end: the path plus one at its last nibble, carried; all ones → unbounded (or the prefix's end).
  const end = Buffer.from(start);
  let i = path.length - 1;
  while (i >= 0 && path[i] === 15) i--;
  if (i < 0) {
    if (prefix === undefined) return { start, end: undefined };
    return { start, end: prefixSuccessor(prefix, HASHED_KEY_BYTES) };
  }
  for (let j = i + 1; j < KEY_NIBBLES; j++) setNibble(end, p, j, 0);
  setNibble(end, p, i, path[i]! + 1);
  return { start, end };
}

function setNibble(buf: Buffer, offset: number, i: number, v: number): void {
  const b = offset + (i >> 1);
  buf[b] = (i & 1) === 0 ? (buf[b]! & 0x0f) | (v << 4) : (buf[b]! & 0xf0) | v;
}

/** The smallest key of `prefix.length + tail` bytes above every key starting with `prefix` (undefined: none). */
function prefixSuccessor(prefix: Uint8Array, tail: number): Buffer | undefined {
  const out = Buffer.alloc(prefix.length + tail);
  out.set(prefix, 0);
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (out[i] !== 0xff) {
      out[i]!++;
      out.fill(0, i + 1, prefix.length);
      return out;
    }
  }
  return undefined;
}

/** Whether the hashed key `key` (bytes, after `offset`) starts with the nibbles of `path`. */
export function keyHasPrefix(key: Uint8Array, path: ArrayLike<number>, offset = 0): boolean {
  for (let i = 0; i < path.length; i++) {
    const b = key[offset + (i >> 1)]!;
    if (((i & 1) === 0 ? b >> 4 : b & 0x0f) !== path[i]) return false;
  }
  return true;
}

/** Hex-prefix (compact) encoding of a node's path (Yellow Paper appendix C), with the leaf flag. */
export function compactPath(nibbles: ArrayLike<number>, from: number, to: number, leaf: boolean): Uint8Array {
  const n = to - from;
  const odd = n & 1;
  const out = new Uint8Array(1 + (n >> 1));
  out[0] = ((leaf ? 2 : 0) + odd) << 4;
  let i = from;
  if (odd === 1) out[0] |= nibbles[i++]!;
  for (let j = 1; i < to; i += 2, j++) out[j] = (nibbles[i]! << 4) | nibbles[i + 1]!;
  return out;
}
