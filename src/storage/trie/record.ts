/**
 * The values of the path-keyed trie tables: one **record** per stored node. A trie stores its
 * branch and extension nodes that are the root or referenced by hash; leaves are never stored —
 * a leaf is the one flat-state entry under its path, rebuilt on read (`leafSource.ts`) — and nor
 * are nodes embedded in their parent (under 32 bytes of RLP).
 *
 * Record: a tag byte, then for a branch a 16-bit big-endian **stored-children mask** (bit i set
 * when child i is itself a stored node, i.e. a branch or extension by hash; clear when it is a
 * leaf, embedded or empty), then the node's RLP exactly as hashed. The mask tells a reader where
 * a child lives without a miss in the table.
 */

/** Tag of a branch record. */
const RECORD_BRANCH = 1;
/** Tag of an extension record (its child is a branch: stored when referenced by hash, embedded in the extension when under 32 bytes). */
const RECORD_EXTENSION = 2;
/** Bytes before a branch record's RLP: tag and mask. */
const BRANCH_RECORD_HEADER = 3;
/** Bytes before an extension record's RLP: the tag. */
const EXTENSION_RECORD_HEADER = 1;

/** A stored node as read from its record. */
interface NodeRecord {
  kind: "branch" | "extension";
  /** Branch: bit i set when child i is a stored node. Extension: 0. */
  storedMask: number;
  /** The node's RLP (a view of the record). */
  rlp: Uint8Array;
}

/** The record of a branch node. */
export function branchRecord(storedMask: number, rlp: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(BRANCH_RECORD_HEADER + rlp.length);
  out[0] = RECORD_BRANCH;
  out[1] = storedMask >> 8;
  out[2] = storedMask & 0xff;
  out.set(rlp, BRANCH_RECORD_HEADER);
  return out;
}

/** The record of an extension node. */
export function extensionRecord(rlp: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(EXTENSION_RECORD_HEADER + rlp.length);
  out[0] = RECORD_EXTENSION;
  out.set(rlp, EXTENSION_RECORD_HEADER);
  return out;
}

/** Reads a record; undefined when its tag is unknown (the caller reports the corruption). */
export function readRecord(rec: Uint8Array): NodeRecord | undefined {
  if (rec.length > BRANCH_RECORD_HEADER && rec[0] === RECORD_BRANCH) {
    return { kind: "branch", storedMask: (rec[1]! << 8) | rec[2]!, rlp: rec.subarray(BRANCH_RECORD_HEADER) };
  }
  if (rec.length > EXTENSION_RECORD_HEADER && rec[0] === RECORD_EXTENSION) return { kind: "extension", storedMask: 0, rlp: rec.subarray(EXTENSION_RECORD_HEADER) };
  return undefined;
}
