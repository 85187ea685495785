/**
 * Merkle-Patricia trie nodes as the proofs algorithms read them: decoding of a node's RLP into a
 * branch, extension or leaf, child references (hash, embedded node, or nothing), and nibble paths.
 * The encoding is the Yellow Paper's (appendix D), the one @ethereumjs/mpt and the state trie of
 * this node write.
 */
import { RLP } from "@ethereumjs/rlp";
import { malformedNode as malformed } from "./trieErrors.js";

/** An RLP item as decoded: bytes, or a list of items (an embedded node is such a list). */
export type RlpItem = Uint8Array | RlpItem[];

/**
 * How a parent refers to a non-empty child: the child's keccak256 (a "hashed" child, stored by
 * itself), or the child's own decoded RLP list when its encoding is under 32 bytes (an "embedded"
 * child, which lives inside the parent's RLP).
 */
export type NodeRef = Uint8Array | RlpItem[];

/**
 * Byte length of a reference by hash (keccak256). A reference is a hash exactly when it is a byte
 * string of this length: an embedded child is always a list, and an empty slot is 0 bytes.
 */
export const HASH_LENGTH = 32;

/** Number of children of a branch node (one per nibble); its RLP list has one more item, the value. */
export const BRANCH_WIDTH = 16;

/** A branch: a child reference per nibble (undefined = empty) and the value of a key ending here. */
export interface BranchNode {
  kind: "branch";
  children: (NodeRef | undefined)[];
  /** The value of the key that ends at this branch; undefined when none (never in the state tries, whose keys all have 64 nibbles). */
  value: Uint8Array | undefined;
}

/** An extension: a run of nibbles shared by every key below, then the branch they lead to. */
export interface ExtensionNode {
  kind: "extension";
  /** The nibbles (one a byte) consumed by this node. */
  key: Uint8Array;
  child: NodeRef;
}

/** A leaf: the rest of one key's nibbles, and its value. */
export interface LeafNode {
  kind: "leaf";
  /** The nibbles (one a byte) of the key's remainder. */
  key: Uint8Array;
  value: Uint8Array;
}

/** A decoded trie node. */
export type TrieNode = BranchNode | ExtensionNode | LeafNode;

/** Whether a reference is by hash (else the child is embedded). */
export function isHashRef(ref: NodeRef): ref is Uint8Array {
  return ref instanceof Uint8Array;
}

/** The nibbles (one a byte) of a byte string: high half first. */
export function bytesToNibbles(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length * 2);
  for (let i = 0; i < bytes.length; i++) {
    out[2 * i] = bytes[i]! >> 4;
    out[2 * i + 1] = bytes[i]! & 0x0f;
  }
  return out;
}

/** The path `path` followed by `nibbles[from..to)` (a new array). */
export function extendPath(path: Uint8Array, nibbles: Uint8Array, from = 0, to = nibbles.length): Uint8Array {
  const out = new Uint8Array(path.length + to - from);
  out.set(path);
  out.set(nibbles.subarray(from, to), path.length);
  return out;
}

/** The path `path` followed by one nibble (a new array). */
export function childPath(path: Uint8Array, nibble: number): Uint8Array {
  const out = new Uint8Array(path.length + 1);
  out.set(path);
  out[path.length] = nibble;
  return out;
}

/** Decodes a node from its RLP; `where` names it in errors (a hash or a path). */
export function decodeNode(rlp: Uint8Array, where: string): TrieNode {
  const items = decodeRlp(rlp, where, "the node");
  if (!Array.isArray(items)) throw malformed(where, "not a list");
  return decodeItems(items, where);
}

/** Decodes a node from its RLP list (an embedded node as its parent holds it). */
export function decodeItems(items: RlpItem[], where: string): TrieNode {
  if (items.length === BRANCH_WIDTH + 1) {
    const children = new Array<NodeRef | undefined>(BRANCH_WIDTH);
    for (let i = 0; i < BRANCH_WIDTH; i++) children[i] = childRef(items[i]!, where);
    const value = items[BRANCH_WIDTH]!;
    if (!(value instanceof Uint8Array)) throw malformed(where, "branch value is a list");
    return { kind: "branch", children, value: value.length === 0 ? undefined : value };
  }
  if (items.length !== 2) throw malformed(where, `a list of ${items.length} items`);
  const compact = items[0]!;
  if (!(compact instanceof Uint8Array) || compact.length === 0) throw malformed(where, "bad hex-prefix path");
  // Hex-prefix: the first nibble is 2 for a leaf (else 0) plus 1 for an odd path, whose first nibble follows it.
  const flag = compact[0]! >> 4;
  if (flag > 3) throw malformed(where, "bad hex-prefix flag");
  const key = bytesToNibbles(compact).subarray((flag & 1) === 1 ? 1 : 2);
  if (flag >= 2) {
    const value = items[1]!;
    if (!(value instanceof Uint8Array)) throw malformed(where, "leaf value is a list");
    return { kind: "leaf", key, value };
  }
  const child = childRef(items[1]!, where);
  if (child === undefined || key.length === 0) throw malformed(where, "empty extension");
  return { kind: "extension", key, child };
}

/** A child reference from its RLP item: undefined when empty. */
function childRef(item: RlpItem, where: string): NodeRef | undefined {
  if (Array.isArray(item)) return item;
  if (item.length === 0) return undefined;
  if (item.length !== HASH_LENGTH) throw malformed(where, `a child reference of ${item.length} bytes`);
  return item;
}

/** The fields of an account leaf's value: RLP [nonce, balance, storageRoot, codeHash]. */
export interface AccountFields {
  nonce: Uint8Array;
  balance: Uint8Array;
  storageRoot: Uint8Array;
  codeHash: Uint8Array;
}

/** Number of fields of an account leaf's value. */
const ACCOUNT_FIELDS = 4;

/** Decodes an account leaf's value; `where` names the account in errors (its hashed address). */
export function decodeAccount(value: Uint8Array, where: string): AccountFields {
  const fields = decodeRlp(value, where, "the account");
  if (!Array.isArray(fields) || fields.length !== ACCOUNT_FIELDS || !fields.every((f) => f instanceof Uint8Array)) throw malformed(where, "the account is not [nonce, balance, storageRoot, codeHash]");
  const [nonce, balance, storageRoot, codeHash] = fields as Uint8Array[];
  if (storageRoot!.length !== HASH_LENGTH || codeHash!.length !== HASH_LENGTH) throw malformed(where, "the account's storage root or code hash is not 32 bytes");
  return { nonce: nonce!, balance: balance!, storageRoot: storageRoot!, codeHash: codeHash! };
}

/** Decodes a storage leaf's value: the RLP of the word's minimal big-endian bytes. */
export function decodeStorageValue(value: Uint8Array, where: string): Uint8Array {
  const word = decodeRlp(value, where, "the storage value");
  if (!(word instanceof Uint8Array)) throw malformed(where, "the storage value is a list");
  return word;
}

/** RLP-decodes `what` (a node or a leaf's value) of `where`, as a malformed-node error when it is not RLP. */
function decodeRlp(bytes: Uint8Array, where: string, what: string): RlpItem {
  try {
    return RLP.decode(bytes) as RlpItem;
  } catch (e) {
    throw malformed(where, `${what} is not RLP`, e);
  }
}
