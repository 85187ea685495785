/**
 * A batch update of a Merkle-Patricia trie over a path-addressed {@link TrieOverlay}: the new
 * root after a set of puts and deletes (keys already hashed), with every node of the final trie
 * that changed written to the overlay at its path, and every path that no longer holds a node
 * marked empty. The state root of a block (account trie and storage tries), the revert of an
 * unwound block and a historical view are all computed with it.
 *
 * The touched paths are decoded once into mutable nodes, every update is applied in memory, and
 * each changed node is encoded and hashed once at the end; untouched subtrees keep their
 * references. Nodes are the bytes @ethereumjs/mpt writes (the tests compare roots and proofs).
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP } from "@ethereumjs/util";
import { keccak256 } from "../../util/keccak.js";
import { StateTrieError, StateTrieErrorCode } from "./errors.js";
import { compactPath, packNibbles } from "./path.js";
import { pathString, type TrieNodeRead, type TrieOverlay } from "./source.js";
import { toHex } from "../../util/bytes.js";

/** A child as referenced in its parent: a 32-byte hash, or an embedded node's decoded RLP list. */
type StoredRef = Uint8Array | RlpList;
type RlpList = (Uint8Array | RlpList)[];

interface Leaf {
  kind: 0;
  /** The key's nibbles below this node's position. */
  path: number[];
  value: Uint8Array;
  /** The hash it was read under (unchanged nodes are not written again). */
  orig?: Uint8Array;
}
interface Extension {
  kind: 1;
  path: number[];
  child: Child;
  orig?: Uint8Array;
}
interface Branch {
  kind: 2;
  children: (Child | undefined)[];
  value: Uint8Array | undefined;
  orig?: Uint8Array;
}
type TrieNode = Leaf | Extension | Branch;
/** A child not read in this update: its reference, and whether it is a stored node (else a leaf or embedded). */
interface Stub {
  kind: 3;
  ref: StoredRef;
  stored: boolean;
}
type Child = TrieNode | Stub;

const EMPTY = new Uint8Array(0);

function nibbles(key: Uint8Array): number[] {
  const out = new Array<number>(key.length * 2);
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4;
    out[2 * i + 1] = key[i]! & 15;
  }
  return out;
}

/** The state of one update: the overlay and the paths read from it. */
interface Ctx {
  overlay: TrieOverlay;
  /** Paths of nodes read from the overlay (or its base) in this update. */
  loaded: Set<string>;
  /** Paths holding a node of the final trie (written or unchanged). */
  kept: Set<string>;
}

function decodeList(raw: RlpList, storedMask: number, where: string): TrieNode {
  if (raw.length === 17) {
    const children = new Array<Child | undefined>(16);
    for (let i = 0; i < 16; i++) {
      const c = raw[i]!;
      if (c instanceof Uint8Array && c.length === 0) children[i] = undefined;
      else children[i] = { kind: 3, ref: c, stored: c instanceof Uint8Array && (storedMask & (1 << i)) !== 0 };
    }
    const v = raw[16]!;
    if (!(v instanceof Uint8Array)) throw new StateTrieError({ code: StateTrieErrorCode.BAD_NODE, where }, `trie node at ${where}: the branch value is a list, expected a string`);
    return { kind: 2, children, value: v.length === 0 ? undefined : v };
  }
  if (raw.length === 2) {
    const p = raw[0]!;
    if (!(p instanceof Uint8Array) || p.length === 0) throw new StateTrieError({ code: StateTrieErrorCode.BAD_NODE, where }, `trie node at ${where}: bad hex-prefix path`);
    const flag = p[0]! >> 4;
    const all = nibbles(p);
    const path = all.slice(flag & 1 ? 1 : 2);
    if (flag >= 2) {
      const v = raw[1]!;
      if (!(v instanceof Uint8Array)) throw new StateTrieError({ code: StateTrieErrorCode.BAD_NODE, where }, `trie node at ${where}: the leaf value is a list, expected a string`);
      return { kind: 0, path, value: v };
    }
    const c = raw[1]!;
    return { kind: 1, path, child: { kind: 3, ref: c, stored: c instanceof Uint8Array } };
  }
  throw new StateTrieError({ code: StateTrieErrorCode.BAD_NODE, where }, `trie node at ${where} has ${raw.length} items, expected 2 or 17`);
}

function fromRead(r: TrieNodeRead, depth: number, hash: Uint8Array, where: string): TrieNode {
  if (r.leafKey !== undefined) return { kind: 0, path: nibbles(r.leafKey).slice(depth), value: r.value, orig: hash };
  const raw = RLP.decode(r.rlp);
  if (!Array.isArray(raw)) throw new StateTrieError({ code: StateTrieErrorCode.BAD_NODE, where }, `trie node at ${where} is not an RLP list`);
  const n = decodeList(raw as RlpList, r.storedMask, where);
  n.orig = hash;
  return n;
}

/** Reads the node a stub stands for, at `path` (the root: the source decides whether it is stored or a leaf). */
function load(ctx: Ctx, c: Stub, path: number[]): TrieNode {
  if (!(c.ref instanceof Uint8Array)) return decodeList(c.ref, 0, pathString(path));
  const p = Uint8Array.from(path);
  const r = ctx.overlay.node(p, c.ref, path.length === 0 ? "unknown" : c.stored ? "stored" : "leaf");
  const where = pathString(path);
  if (r === undefined) throw new StateTrieError({ code: StateTrieErrorCode.MISSING_NODE, where, hash: toHex(c.ref) }, `trie node ${toHex(c.ref)} at path ${where || "(root)"} is not in the state`);
  ctx.loaded.add(where);
  return fromRead(r, path.length, c.ref, where);
}

function resolve(ctx: Ctx, c: Child, path: number[]): TrieNode {
  return c.kind === 3 ? load(ctx, c, path) : c;
}

/** {@link resolve} for the node at `key[0..pos)`, the path built only when it is read. */
function resolveAt(ctx: Ctx, c: Child, key: number[], pos: number): TrieNode {
  return c.kind === 3 ? load(ctx, c, key.slice(0, pos)) : c;
}

/** Length of the common prefix of `path` and `key[pos..]`. */
function common(path: number[], key: number[], pos: number): number {
  let i = 0;
  while (i < path.length && pos + i < key.length && path[i] === key[pos + i]) i++;
  return i;
}

function put(ctx: Ctx, c: Child | undefined, key: number[], pos: number, value: Uint8Array): TrieNode {
  if (c === undefined) return { kind: 0, path: key.slice(pos), value };
  const n = resolveAt(ctx, c, key, pos);
  n.orig = undefined;
  if (n.kind === 2) {
    if (pos === key.length) n.value = value;
    else n.children[key[pos]!] = put(ctx, n.children[key[pos]!], key, pos + 1, value);
    return n;
  }
  const k = common(n.path, key, pos);
  if (n.kind === 0 && k === n.path.length && pos + k === key.length) {
    n.value = value;
    return n;
  }
  if (n.kind === 1 && k === n.path.length) {
    n.child = put(ctx, n.child, key, pos + k, value);
    return n;
  }
  // Split at nibble k: a branch holding the old node's rest and the new leaf.
  const branch: Branch = { kind: 2, children: new Array<Child | undefined>(16), value: undefined };
  if (n.kind === 0) {
    if (k === n.path.length) branch.value = n.value;
    else branch.children[n.path[k]!] = { kind: 0, path: n.path.slice(k + 1), value: n.value };
  } else {
    branch.children[n.path[k]!] = k + 1 === n.path.length ? n.child : { kind: 1, path: n.path.slice(k + 1), child: n.child };
  }
  if (pos + k === key.length) branch.value = value;
  else branch.children[key[pos + k]!] = { kind: 0, path: key.slice(pos + k + 1), value };
  return k === 0 ? branch : { kind: 1, path: n.path.slice(0, k), child: branch };
}

/** `prefix` ++ the child's path, the child at `childPath`, its kind kept (a branch gets a new extension above it). */
function prepend(ctx: Ctx, prefix: number[], c: Child, childPath: number[]): TrieNode {
  const n = resolve(ctx, c, childPath);
  if (n.kind === 2) return prefix.length === 0 ? n : { kind: 1, path: prefix, child: n };
  n.orig = undefined;
  n.path = prefix.concat(n.path);
  return n;
}

function del(ctx: Ctx, c: Child | undefined, key: number[], pos: number): Child | undefined {
  if (c === undefined) return undefined;
  const n = resolveAt(ctx, c, key, pos);
  if (n.kind === 0) {
    const k = common(n.path, key, pos);
    if (k === n.path.length && pos + k === key.length) return undefined;
    return n;
  }
  if (n.kind === 1) {
    const k = common(n.path, key, pos);
    if (k < n.path.length) return n;
    const child = del(ctx, n.child, key, pos + k);
    if (child === undefined) return undefined;
    return prepend(ctx, n.path, child, key.slice(0, pos + k));
  }
  n.orig = undefined;
  if (pos === key.length) n.value = undefined;
  else n.children[key[pos]!] = del(ctx, n.children[key[pos]!], key, pos + 1);
  let count = n.value === undefined ? 0 : 1;
  let only = -1;
  for (let i = 0; i < 16; i++) {
    if (n.children[i] !== undefined) {
      count++;
      only = i;
    }
  }
  if (count >= 2) return n;
  if (count === 0) return undefined;
  if (only === -1) return { kind: 0, path: [], value: n.value! };
  const childPath = key.slice(0, pos);
  childPath.push(only);
  return prepend(ctx, [only], n.children[only]!, childPath);
}

/** The RLP list of a node at `path` (children encoded, the changed ones written). */
function raw(ctx: Ctx, n: TrieNode, path: number[]): { list: RlpList; storedMask: number } {
  if (n.kind === 0) return { list: [compactPath(n.path, 0, n.path.length, true), n.value], storedMask: 0 };
  if (n.kind === 1) return { list: [compactPath(n.path, 0, n.path.length, false), ref(ctx, n.child, path.concat(n.path)).ref], storedMask: 0 };
  const out: RlpList = new Array(17);
  let mask = 0;
  for (let i = 0; i < 16; i++) {
    const c = n.children[i];
    if (c === undefined) {
      out[i] = EMPTY;
      continue;
    }
    const childPath = path.concat(i);
    const r = ref(ctx, c, childPath);
    out[i] = r.ref;
    if (r.stored) mask |= 1 << i;
  }
  out[16] = n.value ?? EMPTY;
  return { list: out, storedMask: mask };
}

/**
 * A child's reference in its parent — embedded when its encoding is under 32 bytes, else its
 * hash, the node written at its path — and whether it is a stored node.
 */
function ref(ctx: Ctx, c: Child, path: number[]): { ref: StoredRef; stored: boolean } {
  // A child not read in this update sits where it was: never at a path this update read (reading replaces the stub).
  if (c.kind === 3) return { ref: c.ref, stored: c.stored };
  const { list, storedMask } = raw(ctx, c, path);
  const encoded = RLP.encode(list);
  if (encoded.length < 32) return { ref: list, stored: false };
  return { ref: write(ctx, c, path, encoded, storedMask), stored: c.kind !== 0 };
}

/** Hashes a node and, when it changed, writes it to the overlay at its path. */
function write(ctx: Ctx, n: TrieNode, path: number[], encoded: Uint8Array, storedMask: number): Uint8Array {
  const k = pathString(path);
  ctx.kept.add(k);
  if (n.orig !== undefined) return n.orig;
  const hash = keccak256(encoded);
  const entry: TrieNodeRead = n.kind === 0 ? { leafKey: packNibbles(path.concat(n.path)), value: n.value } : { rlp: encoded, storedMask, kind: n.kind === 2 ? "branch" : "extension", hash };
  ctx.overlay.entries.set(k, entry);
  return hash;
}

/** One change of a batch: the hashed key and the new value (undefined or empty = delete). */
export interface TrieChange {
  key: Uint8Array;
  value: Uint8Array | undefined;
}

/**
 * The root of the trie `root` after `changes` (applied in order; keys already hashed, values
 * already encoded as the trie holds them), read through `overlay` and its changed nodes written
 * to it by path. The empty trie is `KECCAK256_RLP`.
 */
export function updateTrie(overlay: TrieOverlay, root: Uint8Array, changes: Iterable<TrieChange>): Uint8Array {
  const ctx: Ctx = { overlay, loaded: new Set(), kept: new Set() };
  let top: Child | undefined = root.length === 32 && !equal32(root, KECCAK256_RLP) ? { kind: 3, ref: root, stored: true } : undefined;
  let changed = false;
  for (const { key, value } of changes) {
    changed = true;
    const path = nibbles(key);
    top = value === undefined || value.length === 0 ? del(ctx, top, path, 0) : put(ctx, top, path, 0, value);
  }
  if (!changed) return root;
  let result: Uint8Array;
  if (top === undefined) result = KECCAK256_RLP;
  else if (top.kind === 3) {
    // An embedded node became the root (a one-leaf trie of a tiny value): it is stored under its hash.
    result = top.ref instanceof Uint8Array ? top.ref : hashRoot(ctx, decodeList(top.ref, 0, ""));
  } else result = hashRoot(ctx, top);
  for (const k of ctx.loaded) if (!ctx.kept.has(k)) overlay.entries.set(k, null);
  return result;
}

/** The root is referenced by its hash whatever its size (as @ethereumjs/mpt does). */
function hashRoot(ctx: Ctx, n: TrieNode): Uint8Array {
  const { list, storedMask } = raw(ctx, n, []);
  return write(ctx, n, [], RLP.encode(list), storedMask);
}

function equal32(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}
