/**
 * Merkle proofs (EIP-1186, eth_getProof) from the versioned-by-path store of the historical-proofs
 * extension: the walk from the root along a key's nibbles reads the node stored at each path at the
 * block being proven, and checks every node against the reference its parent holds (the root
 * against the state root), so a store that disagrees with the chain fails loudly instead of
 * returning a proof that does not verify.
 *
 * Proofs are the list @ethereumjs/mpt's `createMerkleProof` gives for the same trie and key, byte
 * for byte: every node on the path from the root, embedded nodes included (each as its own RLP,
 * after the node that holds it); the empty trie's proof is the empty list.
 */
import { KECCAK256_NULL, KECCAK256_RLP, bytesToBigInt, setLengthLeft } from "@ethereumjs/util";
import { to0x } from "../util/bytes.js";
import { keccak256 } from "../util/keccak.js";
import { TrieProofError, TrieProofErrorCode, pathName } from "./trieErrors.js";
import { toNibbles } from "../storage/trie/path.js";
import { decodeAccount, decodeNode, decodeStorageValue, isHashRef, sameBytes, type NodeRef } from "./trieNode.js";

/**
 * The RLP of the node stored at a path (nibbles, one a byte; empty = the root) at the block being
 * proven; undefined when none is. The bytes returned go into the proof as they are: a store must
 * not reuse their buffer.
 */
export type NodeAt = (path: Uint8Array) => Promise<Uint8Array | undefined>;

/** A key's proof and value. */
interface KeyProof {
  /** RLP of every node from the root along the key (embedded nodes included); empty for the empty trie. */
  proof: Uint8Array[];
  /** The key's value; undefined when the key is absent (the proof then proves its absence). */
  value: Uint8Array | undefined;
}

/** One storage slot's proof (EIP-1186 `storageProof` item). */
interface StorageProof {
  /** The slot as requested. */
  slot: Uint8Array;
  /** The slot's value (0 when absent). */
  value: bigint;
  proof: Uint8Array[];
}

/** An account's proof and fields (EIP-1186), as bytes and bigints. */
interface AccountProof {
  accountProof: Uint8Array[];
  nonce: bigint;
  balance: bigint;
  /** The account's storage root; the empty trie's root for an account that does not exist. */
  storageRoot: Uint8Array;
  /** The account's code hash; keccak256 of empty code for an account that does not exist (reth, geth). */
  codeHash: Uint8Array;
  storageProof: StorageProof[];
}

/** Byte length of a storage slot (a 256-bit word); shorter slots are left-padded to it before hashing. */
const SLOT_LENGTH = 32;

/**
 * The proof of `key` (already hashed: a state trie key is keccak256 of the address or slot; any
 * length works) in the trie of root `root`, read from `nodeAt`. Every hashed node read is checked
 * against its parent's reference and the root node against `root`: a mismatch, or a missing node,
 * throws a {@link TrieProofError} `PROOFS_INCONSISTENT` naming the path. The empty trie
 * ({@link KECCAK256_RLP}) reads nothing and proves every key absent with an empty proof.
 */
export async function proveKey(nodeAt: NodeAt, root: Uint8Array, key: Uint8Array): Promise<KeyProof> {
  const proof: Uint8Array[] = [];
  if (sameBytes(root, KECCAK256_RLP)) return { proof, value: undefined };
  const nibbles = toNibbles(key);
  let depth = 0; // nibbles of the key consumed: the current node's path is nibbles[0..depth)
  let rlp = await storedNode(nodeAt, nibbles.subarray(0, 0), root);
  for (;;) {
    proof.push(rlp);
    const at = depth;
    const node = decodeNode(rlp, () => pathName(nibbles.subarray(0, at)));
    let next: NodeRef | undefined;
    if (node.kind === "leaf") {
      const found = node.key.length === nibbles.length - depth && sameBytes(node.key, nibbles.subarray(depth));
      return { proof, value: found ? node.value.slice() : undefined };
    } else if (node.kind === "branch") {
      if (depth === nibbles.length) return { proof, value: node.value?.slice() };
      next = node.children[nibbles[depth]!];
      depth++;
    } else {
      const rest = nibbles.subarray(depth);
      if (rest.length < node.key.length || !sameBytes(node.key, rest.subarray(0, node.key.length))) return { proof, value: undefined };
      next = node.child;
      depth += node.key.length;
    }
    if (next === undefined) return { proof, value: undefined };
    // An embedded node is listed by itself too (as @ethereumjs/mpt does), copied out of its parent.
    rlp = isHashRef(next) ? await storedNode(nodeAt, nibbles.subarray(0, depth), next) : next.slice();
  }
}

/** The node stored at `path`, checked to hash to `expected`. */
async function storedNode(nodeAt: NodeAt, path: Uint8Array, expected: Uint8Array): Promise<Uint8Array> {
  // A fresh array: a subarray of the key's nibbles would carry the whole key in its buffer.
  const rlp = await nodeAt(path.slice());
  const actual = rlp === undefined ? undefined : keccak256(rlp);
  if (actual === undefined || !sameBytes(actual, expected)) {
    const where = pathName(path);
    throw new TrieProofError(
      { code: TrieProofErrorCode.INCONSISTENT, path: where, expected: to0x(expected), ...(actual === undefined ? {} : { actual: to0x(actual) }) },
      `the node stored at path "${where}" ${actual === undefined ? "is missing" : `hashes to ${to0x(actual)}`}, its parent references ${to0x(expected)}`,
    );
  }
  return rlp!;
}

/**
 * The EIP-1186 proof of `address` and of its storage `slots` at the state of root `stateRoot`:
 * the account is read from `accountNodeAt`, its storage from `storageNodeAt(keccak256(address))`.
 * An account that does not exist has nonce and balance 0, the empty trie's storage root and the
 * empty code's hash, and its slots are proven absent (empty proofs). Slots are 32-byte words
 * (shorter ones are left-padded); their keys in the storage trie are keccak256 of the word.
 * Throws like {@link proveKey}, and a `PROOFS_MALFORMED_NODE` when the account leaf is not an account.
 */
export async function accountProof(
  accountNodeAt: NodeAt,
  storageNodeAt: (hashedAddress: Uint8Array) => NodeAt,
  stateRoot: Uint8Array,
  address: Uint8Array,
  slots: Uint8Array[],
): Promise<AccountProof> {
  const hashedAddress = keccak256(address);
  const { proof, value } = await proveKey(accountNodeAt, stateRoot, hashedAddress);
  const account = value === undefined ? undefined : decodeAccount(value, to0x(hashedAddress));
  const storageRoot = account?.storageRoot ?? KECCAK256_RLP;
  const nodeAt = storageNodeAt(hashedAddress);
  const storageProof: StorageProof[] = [];
  for (const slot of slots) {
    if (slot.length > SLOT_LENGTH) throw new TrieProofError({ code: TrieProofErrorCode.INVALID_SLOT, length: slot.length }, `a storage slot of ${slot.length} bytes`);
    const p = await proveKey(nodeAt, storageRoot, keccak256(setLengthLeft(slot, SLOT_LENGTH)));
    storageProof.push({ slot, value: p.value === undefined ? 0n : bytesToBigInt(decodeStorageValue(p.value, to0x(hashedAddress))), proof: p.proof });
  }
  return {
    accountProof: proof,
    nonce: account === undefined ? 0n : bytesToBigInt(account.nonce),
    balance: account === undefined ? 0n : bytesToBigInt(account.balance),
    storageRoot,
    codeHash: account?.codeHash ?? KECCAK256_NULL,
    storageProof,
  };
}
