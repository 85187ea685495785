/**
 * A streaming trie builder (the "hash builder" of reth, geth's stack trie): the root of a
 * Merkle-Patricia trie over 32-byte hashed keys from its leaves in ascending key order, and
 * every node the path-keyed tables store (branch and extension nodes that are the root or
 * referenced by hash — see record.ts), emitted once each in ascending path-key order (the trie's
 * post-order: a node after its subtree, siblings in nibble order), so the caller can append them
 * to a table.
 *
 * Memory is O(depth): the builder holds the last leaf (its placement waits for the next key,
 * which decides how deep it hangs) and the open branches on that leaf's path, at most one per
 * depth, each as its 16 child references. A leaf's depth is one below the deeper of its common
 * prefixes with its two neighbours; a branch closes when a key leaves its subtree. Node RLP is
 * written by hand into preallocated buffers (no per-leaf allocation but the hash).
 *
 * Speed (bench/trieBuilder.ts, 1 M random sorted leaves, November 2026, a loaded 2-core Xeon):
 * 430–460 k leaves/s with the native keccak, three quarters of it hashing (1.36 hashes per leaf
 * at ~1.4 µs each, most of it the addon's per-call result allocation; an in-place variant
 * measured 760–820 k leaves/s); 65–85 k leaves/s with `BASALT_NATIVE_CRYPTO=0`. Without hashing
 * the builder runs at ~2.8 M leaves/s.
 */
import { KECCAK256_RLP } from "@ethereumjs/util";
import { to0x } from "../../util/bytes.js";
import { keccak256 } from "../../util/keccak.js";
import { StateTrieError, StateTrieErrorCode } from "./errors.js";
import { HASHED_KEY_BYTES, KEY_NIBBLES } from "./path.js";
import { branchRecord, extensionRecord } from "./record.js";

/** Receives a stored node: its path (nibbles, one per byte) and its record. Both are the callee's to keep. */
type NodeSink = (path: Uint8Array, record: Buffer) => void;

/** What a node passed to a {@link HashedNodeSink} is. */
export type HashedNodeKind = "branch" | "extension" | "leaf";

/**
 * Receives a node referenced by hash (or the root, whatever its size): its path (nibbles, one per
 * byte), its RLP exactly as hashed, and its kind. Both arrays are the callee's to keep.
 */
export type HashedNodeSink = (path: Uint8Array, rlp: Uint8Array, kind: HashedNodeKind) => void;

/** Options of a {@link TrieBuilder}. */
interface TrieBuilderOptions {
  /**
   * Receives every node a proof of the trie can contain by itself: the root (whatever its kind
   * and size) and every node referenced by hash, **leaves included** (the stored nodes of
   * `onNode` plus the hashed leaves and a lone-leaf root), with its RLP — what a store keeping
   * nodes by path and hash-referenced node (the historical proofs store) writes. Ascending
   * path-key order, like `onNode`; a node goes to `onNode` first when both are set.
   */
  onHashedNode?: HashedNodeSink;
}

/** A leaf of a trie: a 32-byte hashed key and the value the trie stores (non-empty). */
export interface TrieLeaf {
  key: Uint8Array;
  value: Uint8Array;
}

/** Nodes whose RLP is this long or longer are referenced by hash; shorter ones are embedded in their parent. */
const HASH_THRESHOLD = 32;
/** RLP prefix of a 32-byte string: a hash reference (0x80 + 32). */
const HASH_REF_PREFIX = 0xa0;
/** RLP of the empty string: an empty branch slot and a branch's (always empty) value. */
const RLP_EMPTY = 0x80;
/** Largest child reference: the prefix and a 32-byte hash (an embedded node is under 32 bytes). */
const MAX_REF = 33;
/** Children of a branch. */
const BRANCH_WIDTH = 16;
/** Largest branch RLP: a 3-byte list header (payload ≤ 529 bytes), 16 hash references, the empty value. */
const MAX_BRANCH_RLP = 3 + BRANCH_WIDTH * MAX_REF + 1;
/** Largest extension RLP: a 2-byte header, the path (≤ 63 nibbles: 33 bytes with its prefix), a hash reference. */
const MAX_EXTENSION_RLP = 2 + 33 + MAX_REF;
/** Open branches: one per depth 0..63 at most (keys have 64 nibbles). */
const MAX_OPEN = KEY_NIBBLES;
/**
 * Room kept before a leaf's value encoding (written when the leaf is added) for the leaf's list
 * header (≤ 5 bytes) and path (≤ 34 bytes), written when its depth is known. The key is copied
 * just before the value too, so the path's key bytes are in place already.
 */
const LEAF_HEAD = 40;
/** Where a leaf's key is copied in the leaf buffer: right before its value. */
const LEAF_KEY_AT = LEAF_HEAD - HASHED_KEY_BYTES;
/** Initial room for a leaf value's encoding after {@link LEAF_HEAD} (grown on demand). */
const INITIAL_VALUE_ROOM = 256;

/** Byte offsets in {@link TrieBuilder}'s scratch memory: the open branches' child slots, then the node being encoded. */
const SLOTS_BYTES = MAX_OPEN * BRANCH_WIDTH * MAX_REF;
const NODE_AT = SLOTS_BYTES;
const EXTENSION_AT = NODE_AT + MAX_BRANCH_RLP;
const SCRATCH_BYTES = EXTENSION_AT + MAX_EXTENSION_RLP;

/**
 * Builds a trie from its leaves in strictly ascending key order; {@link finish} returns the root.
 * Every stored node (the root when it is a branch or extension, every branch or extension
 * referenced by hash) is passed to `onNode` once, in ascending path-key order, synchronously
 * from the {@link add} or {@link finish} that completes it; with `options.onHashedNode` every
 * hash-referenced node, leaves included, and the root go there too ({@link TrieBuilderOptions}).
 * An exception thrown by a sink propagates and leaves the builder unusable (start a new one).
 */
export class TrieBuilder {
  /** The last added key: its leaf is placed when the next key (or {@link finish}) tells its depth. */
  private readonly prevKey = new Uint8Array(HASHED_KEY_BYTES);
  /** The last key at {@link LEAF_KEY_AT} and value's RLP at {@link LEAF_HEAD}; the leaf's header and path prefix are written before its key's tail at placement. */
  private leaf = new Uint8Array(LEAF_HEAD + INITIAL_VALUE_ROOM);
  private valueEnd = LEAF_HEAD;
  /** Open branches, bottom (shallowest) first: depth, stored-children mask, child slot lengths (0 = empty). */
  private readonly depths = new Int32Array(MAX_OPEN);
  private readonly masks = new Int32Array(MAX_OPEN);
  private readonly slotLens = new Int32Array(MAX_OPEN * BRANCH_WIDTH);
  private top = 0;
  /** Child references (slot (s, i) at ((s·16)+i)·33), then scratch for a branch and an extension RLP: one buffer for copyWithin. */
  private readonly mem = new Uint8Array(SCRATCH_BYTES);
  private leaves = 0;
  private nodes = 0;
  private root: Uint8Array | undefined;

  private readonly onHashedNode: HashedNodeSink | undefined;

  /**
   * @param onNode receives every stored node (omit it to compute the root only).
   * @param options another sink, of every hash-referenced node with its RLP (see {@link TrieBuilderOptions}).
   */
  constructor(
    private readonly onNode?: NodeSink,
    options: TrieBuilderOptions = {},
  ) {
    this.onHashedNode = options.onHashedNode;
  }

  /** Leaves added so far. */
  get leafCount(): number {
    return this.leaves;
  }

  /** Nodes emitted so far. */
  get nodeCount(): number {
    return this.nodes;
  }

  /**
   * Adds a leaf. `key` (32 bytes) must be above the previous key; `value` is the leaf value as
   * the trie stores it (an account's RLP, a slot's RLP), non-empty. Both are copied.
   * @throws StateTrieError `STATE_TRIE_BAD_KEY`, `STATE_TRIE_EMPTY_VALUE`, `STATE_TRIE_UNSORTED_LEAVES`, `STATE_TRIE_FINISHED`; the builder is unchanged.
   */
  add(key: Uint8Array, value: Uint8Array): void {
    if (this.root !== undefined) throw finishedError();
    if (key.length !== HASHED_KEY_BYTES) {
      throw new StateTrieError({ code: StateTrieErrorCode.BAD_KEY, index: this.leaves, length: key.length }, `trie leaf ${this.leaves} has a ${key.length}-byte key; expected a ${HASHED_KEY_BYTES}-byte hashed key`);
    }
    if (value.length === 0) {
      throw new StateTrieError({ code: StateTrieErrorCode.EMPTY_VALUE, index: this.leaves, key: to0x(key) }, `trie leaf ${this.leaves} (key ${to0x(key)}) has an empty value; expected a non-empty leaf value (an empty one is a deletion)`);
    }
    if (this.leaves > 0) {
      const prev = this.prevKey;
      let i = 0;
      while (i < HASHED_KEY_BYTES && prev[i] === key[i]) i++;
      if (i === HASHED_KEY_BYTES || key[i]! < prev[i]!) {
        const duplicate = i === HASHED_KEY_BYTES;
        throw new StateTrieError({ code: StateTrieErrorCode.UNSORTED_LEAVES, index: this.leaves, previous: to0x(prev), key: to0x(key), duplicate }, `trie leaf ${this.leaves} has key ${to0x(key)}, ${duplicate ? "equal to" : "below"} the previous key ${to0x(prev)}; expected strictly ascending keys`);
      }
      // Common prefix in nibbles: the high nibbles of the first differing byte may still agree.
      this.placePrev(2 * i + ((prev[i]! ^ key[i]!) > 0x0f ? 0 : 1));
    }
    this.prevKey.set(key);
    this.encodeValue(value);
    this.leaf.set(key, LEAF_KEY_AT);
    this.leaves++;
  }

  /**
   * Places the last leaf, closes every open branch (emitting the remaining nodes) and returns
   * the root hash: keccak256 of the root's RLP, KECCAK256_RLP without leaves.
   * @throws StateTrieError `STATE_TRIE_FINISHED` when called twice.
   */
  finish(): Uint8Array {
    if (this.root !== undefined) throw finishedError();
    if (this.leaves === 0) this.root = Uint8Array.from(KECCAK256_RLP);
    else if (this.leaves === 1) {
      // A lone leaf is the root (never stored), its path the whole key.
      const start = this.encodeLeaf(0);
      this.root = keccak256(this.leaf.subarray(start, this.valueEnd));
      this.onHashedNode?.(new Uint8Array(0), this.leaf.slice(start, this.valueEnd), "leaf");
    } else {
      this.placePrev(-1);
      if (this.root === undefined) throw new Error("trie builder: no root after closing every branch");
    }
    return this.root;
  }

  /**
   * Hangs the pending leaf under the open branch its key ends at, given `cp`, its common prefix
   * (nibbles) with the next key (-1 at the end), then closes the branches deeper than `cp`.
   */
  private placePrev(cp: number): void {
    // Entering, the top branch is at the previous key's common prefix; the leaf hangs below the deeper one.
    if (this.top === 0 || this.depths[this.top - 1]! < cp) this.openBranch(cp);
    const s = this.top - 1;
    const depth = this.depths[s]!;
    const start = this.encodeLeaf(depth + 1);
    const len = this.valueEnd - start;
    const slot = s * BRANCH_WIDTH + this.nibble(depth);
    const at = slot * MAX_REF;
    const mem = this.mem;
    if (len >= HASH_THRESHOLD) {
      mem[at] = HASH_REF_PREFIX;
      hashInto(this.leaf.subarray(start, this.valueEnd), mem, at + 1);
      this.slotLens[slot] = MAX_REF;
      if (this.onHashedNode !== undefined) this.onHashedNode(this.pathOf(depth + 1), this.leaf.slice(start, this.valueEnd), "leaf");
    } else {
      const leaf = this.leaf;
      for (let k = 0; k < len; k++) mem[at + k] = leaf[start + k]!;
      this.slotLens[slot] = len;
    }
    while (this.top > 0 && this.depths[this.top - 1]! > cp) this.closeTop(cp);
  }

  /** Opens a branch at `depth` on top of the stack. */
  private openBranch(depth: number): void {
    const s = this.top++;
    this.depths[s] = depth;
    this.masks[s] = 0;
    this.slotLens.fill(0, s * BRANCH_WIDTH, (s + 1) * BRANCH_WIDTH);
  }

  /**
   * Closes the top branch: encodes it, emits it (and the extension above it) when stored, and
   * puts its reference in its parent, opening the parent at `cp` when no open branch is there;
   * with no parent (`cp` -1, the bottom branch) it is the root or under the root extension.
   */
  private closeTop(cp: number): void {
    const s = --this.top;
    const depth = this.depths[s]!;
    const mask = this.masks[s]!;
    const len = this.encodeBranch(s);
    let parent = -1;
    if (s > 0 && this.depths[s - 1]! >= cp) parent = s - 1;
    else if (cp >= 0) {
      this.openBranch(cp); // at index s: the closed branch's slots were read above
      parent = s;
    }
    const parentDepth = parent >= 0 ? this.depths[parent]! : -1;
    const mem = this.mem;
    const isRoot = parent < 0 && depth === 0;
    const branchStored = len >= HASH_THRESHOLD || isRoot;
    if (branchStored) this.emit(depth, false, NODE_AT, len, mask);
    if (isRoot) {
      this.root = keccak256(mem.subarray(NODE_AT, NODE_AT + len));
      return;
    }
    let refFrom = NODE_AT;
    let refLen = len;
    let refStored = branchStored;
    if (depth > parentDepth + 1) {
      // An extension from just below the parent down to the branch.
      const extLen = this.encodeExtension(parentDepth + 1, depth, len);
      if (parent < 0) {
        this.emit(0, true, EXTENSION_AT, extLen, 0);
        this.root = keccak256(mem.subarray(EXTENSION_AT, EXTENSION_AT + extLen));
        return;
      }
      refStored = extLen >= HASH_THRESHOLD;
      if (refStored) this.emit(parentDepth + 1, true, EXTENSION_AT, extLen, 0);
      refFrom = EXTENSION_AT;
      refLen = extLen;
    }
    const nib = this.nibble(parentDepth);
    const slot = parent * BRANCH_WIDTH + nib;
    this.slotLens[slot] = this.writeRef(refFrom, refLen, slot * MAX_REF);
    if (refStored) this.masks[parent]! |= 1 << nib;
  }

  /** Writes the reference of the node at `mem[from, from + len)` at `mem[to]` (its hash, or itself when short); returns its length. */
  private writeRef(from: number, len: number, to: number): number {
    const mem = this.mem;
    if (len < HASH_THRESHOLD) {
      mem.copyWithin(to, from, from + len);
      return len;
    }
    hashInto(mem.subarray(from, from + len), mem, to + 1);
    mem[to] = HASH_REF_PREFIX;
    return MAX_REF;
  }

  /** RLP of open branch `s` at {@link NODE_AT}; returns its length. */
  private encodeBranch(s: number): number {
    const mem = this.mem;
    const lens = this.slotLens;
    const first = s * BRANCH_WIDTH;
    let payload = 1; // the empty value
    for (let i = 0; i < BRANCH_WIDTH; i++) payload += lens[first + i] || 1;
    let o = NODE_AT;
    if (payload < 56) mem[o++] = 0xc0 + payload;
    else if (payload < 256) {
      mem[o++] = 0xf8;
      mem[o++] = payload;
    } else {
      mem[o++] = 0xf9;
      mem[o++] = payload >> 8;
      mem[o++] = payload & 0xff;
    }
    for (let i = 0; i < BRANCH_WIDTH; i++) {
      const n = lens[first + i]!;
      if (n === 0) mem[o++] = RLP_EMPTY;
      else {
        const at = (first + i) * MAX_REF;
        mem.copyWithin(o, at, at + n);
        o += n;
      }
    }
    mem[o++] = RLP_EMPTY;
    return o - NODE_AT;
  }

  /**
   * RLP at {@link EXTENSION_AT} of the extension over the pending key's nibbles [from, to) whose
   * child is the branch of `childLen` bytes at {@link NODE_AT}; returns its length.
   */
  private encodeExtension(from: number, to: number, childLen: number): number {
    const mem = this.mem;
    const n = to - from;
    const pathBytes = 1 + (n >> 1); // hex-prefix: flag byte (with the first nibble when odd), then pairs
    const pathLen = pathBytes === 1 ? 1 : 1 + pathBytes; // a lone flag byte (0x00 or 0x1X) is its own RLP
    const refLen = childLen < HASH_THRESHOLD ? childLen : MAX_REF;
    const payload = pathLen + refLen;
    let o = EXTENSION_AT;
    if (payload < 56) mem[o++] = 0xc0 + payload;
    else {
      mem[o++] = 0xf8;
      mem[o++] = payload;
    }
    if (pathBytes > 1) mem[o++] = 0x80 + pathBytes;
    let i = from;
    if ((n & 1) === 1) mem[o++] = 0x10 | this.nibble(i++);
    else mem[o++] = 0;
    for (; i < to; i += 2) mem[o++] = (this.nibble(i) << 4) | this.nibble(i + 1);
    o += this.writeRef(NODE_AT, childLen, o);
    return o - EXTENSION_AT;
  }

  /**
   * Writes the pending leaf's header and path (its key's nibbles from `depth`, hex-prefix with
   * the leaf flag) before its value's encoding; returns where its RLP starts in {@link leaf}.
   */
  private encodeLeaf(depth: number): number {
    const buf = this.leaf;
    const rest = HASHED_KEY_BYTES - ((depth + 1) >> 1); // whole key bytes after the flag byte, in place before the value
    const pathLen = rest === 0 ? 1 : 2 + rest; // a lone flag byte (0x20 or 0x3X) is its own RLP
    const payload = pathLen + (this.valueEnd - LEAF_HEAD);
    // The path: [0x80 + length], the flag byte (with the odd nibble, read from the intact key copy), the key's tail.
    let start = LEAF_HEAD - rest;
    buf[--start] = (depth & 1) === 1 ? 0x30 | (this.prevKey[depth >> 1]! & 0x0f) : 0x20;
    if (rest > 0) buf[--start] = 0x80 + 1 + rest;
    // The list header, just before the path.
    if (payload < 56) buf[--start] = 0xc0 + payload;
    else {
      let p = payload;
      let bytes = 0;
      while (p > 0) {
        buf[--start] = p & 0xff;
        p = Math.floor(p / 256);
        bytes++;
      }
      buf[--start] = 0xf7 + bytes;
    }
    return start;
  }

  /** RLP string of `value` at {@link LEAF_HEAD} in {@link leaf}, growing it when needed. */
  private encodeValue(value: Uint8Array): void {
    const n = value.length;
    // Header ≤ 9 bytes (0xb7 + an up to 8-byte length).
    if (this.leaf.length < LEAF_HEAD + 9 + n) this.leaf = new Uint8Array(LEAF_HEAD + 9 + n * 2);
    const buf = this.leaf;
    let o = LEAF_HEAD;
    if (n === 1 && value[0]! < 0x80) buf[o++] = value[0]!;
    else if (n < 56) {
      buf[o++] = 0x80 + n;
      buf.set(value, o);
      o += n;
    } else {
      let bytes = 0;
      for (let p = n; p > 0; p = Math.floor(p / 256)) bytes++;
      buf[o++] = 0xb7 + bytes;
      for (let b = bytes - 1; b >= 0; b--) buf[o++] = Math.floor(n / 256 ** b) & 0xff;
      buf.set(value, o);
      o += n;
    }
    this.valueEnd = o;
  }

  /** Nibble `i` of the pending key. */
  private nibble(i: number): number {
    const b = this.prevKey[i >> 1]!;
    return (i & 1) === 0 ? b >> 4 : b & 0x0f;
  }

  /** Emits the node at the pending key's first `depth` nibbles, its RLP at `mem[at, at + len)`. */
  private emit(depth: number, extension: boolean, at: number, len: number, mask: number): void {
    this.nodes++;
    if (this.onNode === undefined && this.onHashedNode === undefined) return;
    const rlp = this.mem.subarray(at, at + len);
    if (this.onNode !== undefined) this.onNode(this.pathOf(depth), extension ? extensionRecord(rlp) : branchRecord(mask, rlp));
    if (this.onHashedNode !== undefined) this.onHashedNode(this.pathOf(depth), rlp.slice(), extension ? "extension" : "branch");
  }

  /** The pending key's first `depth` nibbles (a new array). */
  private pathOf(depth: number): Uint8Array {
    const path = new Uint8Array(depth);
    for (let i = 0; i < depth; i++) path[i] = this.nibble(i);
    return path;
  }
}

/**
 * Writes keccak256(`data`) at `out[at, at + 32)`. Every hash of the builder but the root's goes
 * through here: an in-place native keccak (one that writes into `out` instead of returning a new
 * array: no ArrayBuffer per call, far less GC) makes the builder 2–2.5× faster (bench/trieBuilder.ts).
 */
function hashInto(data: Uint8Array, out: Uint8Array, at: number): void {
  out.set(keccak256(data), at);
}

function finishedError(): StateTrieError {
  return new StateTrieError({ code: StateTrieErrorCode.FINISHED }, "trie builder used after finish(); expected a new TrieBuilder for another trie");
}

/**
 * The root of the trie of `leaves` (strictly ascending 32-byte keys), passing every stored node
 * to `onNode` in ascending path-key order.
 * @throws StateTrieError as {@link TrieBuilder.add}.
 */
export function buildTrie(leaves: Iterable<TrieLeaf>, onNode?: NodeSink): Uint8Array {
  const builder = new TrieBuilder(onNode);
  for (const { key, value } of leaves) builder.add(key, value);
  return builder.finish();
}
