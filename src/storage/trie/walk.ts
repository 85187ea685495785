/**
 * Walks down one key's path of a trie through a {@link TrieSource}: the value at the key, and
 * the nodes on the way (an EIP-1186 proof; what an execution witness records). Leaves a source
 * rebuilds from the flat state are turned back into their RLP.
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_RLP } from "@ethereumjs/util";
import { StateTrieError, StateTrieErrorCode } from "./errors.js";
import { compactPath, toNibbles } from "./path.js";
import { pathString, type NodeHint, type TrieNodeRead, type TrieSource } from "./source.js";
import { bytesEqual } from "../../util/bytes.js";

type Item = Uint8Array | Item[];

/** The RLP of a node read at a path of `depth` nibbles (a leaf rebuilt from its key and value). */
export function nodeRlp(read: TrieNodeRead, depth: number): Uint8Array {
  if (read.rlp !== undefined) return read.rlp;
  const nib = toNibbles(read.leafKey);
  return RLP.encode([compactPath(nib, depth, nib.length, true), read.value]);
}

/** What {@link walkKey} found: the key's value (undefined: provably absent) and the hashed nodes walked (root first). */
interface KeyWalk {
  value: Uint8Array | undefined;
  proof: Uint8Array[];
}

/**
 * Walks `key` (hashed) from `root` through `source`. Nodes referenced by hash are read (and
 * listed in `proof`); embedded ones are decoded from their parent.
 * @throws StateTrieError `STATE_TRIE_MISSING_NODE` when the source lacks a node on the path.
 */
export function walkKey(source: TrieSource, root: Uint8Array, key: Uint8Array): KeyWalk {
  const proof: Uint8Array[] = [];
  if (bytesEqual(root, KECCAK256_RLP)) return { value: undefined, proof };
  const want = toNibbles(key);
  let depth = 0;
  let hint: NodeHint = "unknown";
  let ref: Item = root;
  for (;;) {
    let node: Item;
    /** The stored-children mask of the node read (undefined: an embedded node, decoded from its parent). */
    let mask: number | undefined;
    if (ref instanceof Uint8Array) {
      if (ref.length === 0) return { value: undefined, proof };
      const path = want.subarray(0, depth);
      const read = source.node(path, ref, hint);
      if (read === undefined) {
        throw new StateTrieError({ code: StateTrieErrorCode.MISSING_NODE, where: pathString(path), hash: Buffer.from(ref).toString("hex") }, `trie node ${Buffer.from(ref).toString("hex")} at path ${pathString(path) || "(root)"} is not in the state`);
      }
      const rlp = nodeRlp(read, depth);
      proof.push(rlp);
      node = RLP.decode(rlp) as Item;
      mask = read.storedMask;
    } else node = ref;
    if (!Array.isArray(node)) throw new StateTrieError({ code: StateTrieErrorCode.BAD_NODE }, `trie node at path ${pathString(want.subarray(0, depth))} is not a list`);
    if (node.length === 17) {
      if (depth === want.length) {
        const v = node[16] as Uint8Array;
        return { value: v.length === 0 ? undefined : v, proof };
      }
      const nibble = want[depth]!;
      ref = node[nibble]!;
      // Where the child lives: the branch's stored-children mask says (a source reading by hash ignores it).
      hint = mask === undefined ? "unknown" : (mask & (1 << nibble)) !== 0 ? "stored" : "leaf";
      depth++;
      continue;
    }
    if (node.length !== 2) throw new StateTrieError({ code: StateTrieErrorCode.BAD_NODE }, `trie node with ${node.length} items, expected 2 or 17`);
    const compact = node[0] as Uint8Array;
    const flag = compact[0]! >> 4;
    const nib = toNibbles(compact).subarray(flag & 1 ? 1 : 2);
    for (let j = 0; j < nib.length; j++) if (want[depth + j] !== nib[j]) return { value: undefined, proof };
    depth += nib.length;
    if (flag >= 2) return { value: depth === want.length ? (node[1] as Uint8Array) : undefined, proof };
    ref = node[1]!;
    // An extension's child is a branch: stored.
    hint = "stored";
  }
}
