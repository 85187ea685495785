/**
 * Merkle-Patricia trie nodes as the proofs algorithms read them: decoding of a node's RLP into a
 * branch, extension or leaf, child references (hash, embedded node, or nothing), and nibble paths.
 * The encoding is the Yellow Paper's (appendix D), the one @ethereumjs/mpt and the state trie of
 * this node write.
 *
 * Nodes are decoded in place: keys' compact paths, values and child references are views of the
 * node's RLP, and an embedded child is referenced by its own RLP bytes (a view too). A diff reads
 * a few nodes per changed key, and @ethereumjs/rlp's decoder, which copies every item, was most of
 * its time: decoding in place took the diff of a block changing 50 accounts of a 1,000-account
 * trie from 1,316 to 600 µs (November 2026).
 */
import { RLP } from "@ethereumjs/rlp";
import { toNibbles } from "../storage/trie/path.js";
import { malformedNode as malformed, type Where } from "./trieErrors.js";

/** An RLP item as @ethereumjs/rlp decodes it: bytes, or a list of items. */
type RlpItem = Uint8Array | RlpItem[];

/**
 * How a parent refers to a non-empty child: the child's keccak256 (a "hashed" child, stored by
 * itself), or the child's own RLP when it is under 32 bytes (an "embedded" child, which lives
 * inside the parent's RLP). The length tells them apart: exactly {@link HASH_LENGTH} bytes is a
 * hash, anything shorter an embedded node.
 */
export type NodeRef = Uint8Array;

/** Byte length of a reference by hash (keccak256); an embedded node's RLP is shorter (the decoder refuses longer ones). */
const HASH_LENGTH = 32;

/** Number of children of a branch node (one per nibble); its RLP list has one more item, the value. */
const BRANCH_WIDTH = 16;

/** A branch: a child reference per nibble (undefined = empty) and the value of a key ending here. */
interface BranchNode {
  kind: "branch";
  children: (NodeRef | undefined)[];
  /** The value of the key that ends at this branch; undefined when none (never in the state tries, whose keys all have 64 nibbles). */
  value: Uint8Array | undefined;
}

/** An extension: a run of nibbles shared by every key below, then the branch they lead to. */
interface ExtensionNode {
  kind: "extension";
  /** The nibbles (one a byte) consumed by this node. */
  key: Uint8Array;
  child: NodeRef;
}

/** A leaf: the rest of one key's nibbles, and its value. */
interface LeafNode {
  kind: "leaf";
  /** The nibbles (one a byte) of the key's remainder. */
  key: Uint8Array;
  value: Uint8Array;
}

/** A decoded trie node. */
export type TrieNode = BranchNode | ExtensionNode | LeafNode;

/** Whether a reference is by hash (else it is an embedded node's RLP). */
export function isHashRef(ref: NodeRef): boolean {
  return ref.length === HASH_LENGTH;
}

/** Byte equality without a Buffer per call (hashes are compared at every step of a diff). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}


/** Items of a branch's RLP list; an extension's or leaf's has 2. */
const BRANCH_ITEMS = BRANCH_WIDTH + 1;
/** RLP prefixes (Yellow Paper appendix B): a byte below 0x80 is itself; 0x80-0xb7 a short string; 0xb8-0xbf a long one; 0xc0-0xf7 a short list; 0xf8-0xff a long one. */
const RLP_STRING = 0x80;
const RLP_LONG_STRING = 0xb8;
const RLP_LIST = 0xc0;
const RLP_LONG_LIST = 0xf8;
/** Longest payload of a short string or list (its length sits in the prefix byte). */
const RLP_SHORT_MAX = 55;

/**
 * One RLP item read in place by {@link readItem}: where it starts (its prefix), where its payload
 * starts and where it ends, and whether it is a list. One per thread, reused by every read.
 */
const item = { start: 0, payload: 0, end: 0, list: false };

/** Reads the RLP item at `pos` of `rlp` (which must end by `limit`) into {@link item}. */
function readItem(rlp: Uint8Array, pos: number, limit: number, where: Where): void {
  if (pos >= limit) throw malformed(where, "truncated RLP");
  const prefix = rlp[pos]!;
  item.start = pos;
  item.list = prefix >= RLP_LIST;
  if (prefix < RLP_STRING) {
    item.payload = pos;
    item.end = pos + 1;
  } else if (prefix < RLP_LONG_STRING || (prefix >= RLP_LIST && prefix < RLP_LONG_LIST)) {
    item.payload = pos + 1;
    item.end = item.payload + prefix - (item.list ? RLP_LIST : RLP_STRING);
  } else {
    const lengthBytes = prefix - (item.list ? RLP_LONG_LIST : RLP_LONG_STRING) + 1;
    let length = 0;
    for (let i = 1; i <= lengthBytes; i++) length = length * 256 + (rlp[pos + i] ?? 0);
    if (length <= RLP_SHORT_MAX) throw malformed(where, "non-canonical RLP length");
    item.payload = pos + 1 + lengthBytes;
    item.end = item.payload + length;
  }
  if (item.end > limit) throw malformed(where, "truncated RLP");
}

/** Decodes a node from its RLP (a stored node, or an embedded one's bytes); `where` names it in errors. */
export function decodeNode(rlp: Uint8Array, where: Where): TrieNode {
  readItem(rlp, 0, rlp.length, where);
  if (!item.list || item.end !== rlp.length) throw malformed(where, "not an RLP list");
  const end = item.end;
  const items: Uint8Array[] = [];
  const lists: boolean[] = [];
  for (let pos = item.payload; pos < end; pos = item.end) {
    if (items.length === BRANCH_ITEMS) throw malformed(where, "a list of more than 17 items");
    readItem(rlp, pos, end, where);
    // A list is kept whole (an embedded child's RLP), a string as its payload.
    items.push(item.list ? rlp.subarray(item.start, item.end) : rlp.subarray(item.payload, item.end));
    lists.push(item.list);
  }
  if (items.length === BRANCH_ITEMS) {
    const children = new Array<NodeRef | undefined>(BRANCH_WIDTH);
    for (let i = 0; i < BRANCH_WIDTH; i++) children[i] = childRef(items[i]!, lists[i]!, where);
    if (lists[BRANCH_WIDTH]) throw malformed(where, "branch value is a list");
    const value = items[BRANCH_WIDTH]!;
    return { kind: "branch", children, value: value.length === 0 ? undefined : value };
  }
  if (items.length !== 2) throw malformed(where, `a list of ${items.length} items`);
  const compact = items[0]!;
  if (lists[0] || compact.length === 0) throw malformed(where, "bad hex-prefix path");
  // Hex-prefix: the first nibble is 2 for a leaf (else 0) plus 1 for an odd path, whose first nibble follows it.
  const flag = compact[0]! >> 4;
  if (flag > 3) throw malformed(where, "bad hex-prefix flag");
  const key = toNibbles(compact).subarray((flag & 1) === 1 ? 1 : 2);
  if (flag >= 2) {
    if (lists[1]) throw malformed(where, "leaf value is a list");
    return { kind: "leaf", key, value: items[1]! };
  }
  const child = childRef(items[1]!, lists[1]!, where);
  if (child === undefined || key.length === 0) throw malformed(where, "empty extension");
  return { kind: "extension", key, child };
}

/** A child reference from its item (a list: an embedded node's RLP; a string: a hash or nothing). */
function childRef(bytes: Uint8Array, list: boolean, where: Where): NodeRef | undefined {
  if (list) {
    if (bytes.length >= HASH_LENGTH) throw malformed(where, `an embedded node of ${bytes.length} bytes`);
    return bytes;
  }
  if (bytes.length === 0) return undefined;
  if (bytes.length !== HASH_LENGTH) throw malformed(where, `a child reference of ${bytes.length} bytes`);
  return bytes;
}

/** The fields of an account leaf's value: RLP [nonce, balance, storageRoot, codeHash]. */
interface AccountFields {
  nonce: Uint8Array;
  balance: Uint8Array;
  storageRoot: Uint8Array;
  codeHash: Uint8Array;
}

/** Number of fields of an account leaf's value. */
const ACCOUNT_FIELDS = 4;

/** Decodes an account leaf's value; `where` names the account in errors (its hashed address). */
export function decodeAccount(value: Uint8Array, where: Where): AccountFields {
  const fields = decodeRlp(value, where, "the account");
  if (!Array.isArray(fields) || fields.length !== ACCOUNT_FIELDS || !fields.every((f) => f instanceof Uint8Array)) throw malformed(where, "the account is not [nonce, balance, storageRoot, codeHash]");
  const [nonce, balance, storageRoot, codeHash] = fields as Uint8Array[];
  if (storageRoot!.length !== HASH_LENGTH || codeHash!.length !== HASH_LENGTH) throw malformed(where, "the account's storage root or code hash is not 32 bytes");
  return { nonce: nonce!, balance: balance!, storageRoot: storageRoot!, codeHash: codeHash! };
}

/** Decodes a storage leaf's value: the RLP of the word's minimal big-endian bytes. */
export function decodeStorageValue(value: Uint8Array, where: Where): Uint8Array {
  const word = decodeRlp(value, where, "the storage value");
  if (!(word instanceof Uint8Array)) throw malformed(where, "the storage value is a list");
  return word;
}

/** RLP-decodes `what` (a leaf's value) of `where`, as a malformed-node error when it is not RLP. */
function decodeRlp(bytes: Uint8Array, where: Where, what: string): RlpItem {
  try {
    return RLP.decode(bytes) as RlpItem;
  } catch (e) {
    throw malformed(where, `${what} is not RLP`, e);
  }
}
