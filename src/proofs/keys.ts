/**
 * Binary keys of the historical proofs store. RocksDB orders keys bytewise, and every layout
 * here is chosen so that order does the work:
 *
 * - **path key**: a trie path (nibbles 0..15, 0 to 64 of them) as `length (1 byte) ‖ nibbles
 *   packed two per byte, high nibble first` (`ceil(n/2)` bytes, the last low nibble 0 when n is
 *   odd). The length byte makes path keys prefix-free: no path key is the start of another, so
 *   the keys of one path's versions are exactly the keys that start with its path key.
 * - **version**: the block number as the 8-byte big-endian complement `2^64-1 − block`, appended
 *   to the path key. Newer versions sort first, so a forward seek from `path ‖ version(N)` lands
 *   on the newest version ≤ N.
 * - **account-trie node key** (column family `account_trie`): `pathKey ‖ version`.
 * - **storage-trie node key** (column family `storage_trie`): `hashedAddress (32) ‖ pathKey ‖
 *   version`: the tries of different accounts never share a key.
 * - **node prefix**: a node key without its version (`pathKey`, or `hashedAddress ‖ pathKey`).
 * - **change index key** (column family `change_index`): the block number, 8-byte big-endian
 *   (not complemented: rows go oldest first). Its value is the block's hash (32 bytes) followed
 *   by one record per trie path the block wrote a version of: `0x00 ‖ pathKey` for the account
 *   trie, `0x01 ‖ hashedAddress ‖ pathKey` for a storage trie (a tag byte and a node prefix).
 * - **block record** (meta values `earliest`, `latest`): `number (8, big-endian) ‖ hash (32)`.
 */
import { numberKey, readNumber } from "../storage/keys.js";
import { invalidInput } from "./errors.js";
import type { BlockRef, TrieRef } from "./types.js";

/** Most nibbles of a trie path: a 32-byte hashed key has 64. */
const MAX_PATH_NIBBLES = 64;
/** Bytes of a hashed address (keccak-256), the storage trie's key prefix. */
const HASHED_ADDRESS_BYTES = 32;
/** Bytes of a block hash. */
export const HASH_BYTES = 32;
/** Bytes of a version suffix. */
const VERSION_BYTES = 8;
/** Largest block number a version can hold. */
const MAX_BLOCK_NUMBER = 2n ** 64n - 1n;
/** Bytes of a block record. */
const BLOCK_RECORD_BYTES = 8 + HASH_BYTES;

/** Change-index record tag of an account-trie path. */
const ACCOUNT_TAG = 0x00;
/** Change-index record tag of a storage-trie path. */
const STORAGE_TAG = 0x01;

/** The two node column families: which one a node prefix belongs to. */
export type TrieKind = TrieRef["kind"];

/** A trie path's node prefix with the trie it belongs to (what a change-index record holds). */
export interface NodeSlot {
  kind: TrieKind;
  /** the node key without its version */
  prefix: Buffer;
}

/** The path key of nibble path `path` (see the module comment). */
export function encodePath(path: Uint8Array): Buffer {
  if (path.length > MAX_PATH_NIBBLES) throw invalidInput(`a trie path has at most ${MAX_PATH_NIBBLES} nibbles, got ${path.length}`);
  const out = Buffer.alloc(1 + Math.ceil(path.length / 2));
  out[0] = path.length;
  for (let i = 0; i < path.length; i++) {
    const nibble = path[i]!;
    if (nibble > 15) throw invalidInput(`a trie path holds nibbles 0..15, got ${nibble} at index ${i}`);
    out[1 + (i >> 1)]! |= i % 2 === 0 ? nibble << 4 : nibble;
  }
  return out;
}

/** Bytes of the path key that starts with length byte `length`. */
function pathKeyBytes(length: number): number {
  return 1 + Math.ceil(length / 2);
}

/** The nibble path of the path key at `offset` of `b`, and the offset just past it. */
export function decodePath(b: Uint8Array, offset = 0): { path: Uint8Array; end: number } {
  const length = b[offset];
  if (length === undefined || length > MAX_PATH_NIBBLES) throw invalidInput(`no path key at offset ${offset}`);
  const end = offset + pathKeyBytes(length);
  if (end > b.length) throw invalidInput(`path key at offset ${offset} runs past the end (${end} > ${b.length} bytes)`);
  const path = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const byte = b[offset + 1 + (i >> 1)]!;
    path[i] = i % 2 === 0 ? byte >> 4 : byte & 0x0f;
  }
  return { path, end };
}

/** The node prefix of `path` in `trie`: the path key, after the hashed address for a storage trie. */
export function nodePrefix(trie: TrieRef, path: Uint8Array): Buffer {
  const pathKey = encodePath(path);
  if (trie.kind === "account") return pathKey;
  if (trie.hashedAddress.length !== HASHED_ADDRESS_BYTES) {
    throw invalidInput(`a hashed address has ${HASHED_ADDRESS_BYTES} bytes, got ${trie.hashedAddress.length}`);
  }
  return Buffer.concat([trie.hashedAddress, pathKey]);
}

/** The version suffix of `block`: `2^64-1 − block`, 8 bytes big-endian. */
function versionSuffix(block: bigint): Buffer {
  if (block < 0n || block > MAX_BLOCK_NUMBER) throw invalidInput(`a block number is 0..2^64-1, got ${block}`);
  return numberKey(MAX_BLOCK_NUMBER - block);
}

/** The node key of `prefix` at version `block`. */
export function nodeKey(prefix: Uint8Array, block: bigint): Buffer {
  return Buffer.concat([prefix, versionSuffix(block)]);
}

/** The block number of a node key's version (its last 8 bytes). */
export function keyVersion(key: Uint8Array): bigint {
  return MAX_BLOCK_NUMBER - readNumber(key, key.length - VERSION_BYTES);
}

/** The node prefix of a node key (the key without its version). */
export function keyPrefix(key: Buffer): Buffer {
  return key.subarray(0, key.length - VERSION_BYTES);
}

/** The key range of the versions of `prefix` from `block` down to 0, newest first (forward order). */
export function versionsAtOrBelow(prefix: Uint8Array, block: bigint): { gte: Buffer; lte: Buffer } {
  return { gte: nodeKey(prefix, block), lte: nodeKey(prefix, 0n) };
}

/** The change-index key of `block`. */
export function changeIndexKey(block: bigint): Buffer {
  return numberKey(block);
}

/** The change-index value of a block: its hash, then one record per slot (see the module comment). */
export function encodeChangeRow(hash: Uint8Array, slots: Iterable<NodeSlot>): Buffer {
  const parts: Uint8Array[] = [hash];
  for (const slot of slots) parts.push(Uint8Array.of(slot.kind === "account" ? ACCOUNT_TAG : STORAGE_TAG), slot.prefix);
  return Buffer.concat(parts);
}

/** The block hash and slots of a change-index value; throws INVALID_INPUT on bytes that do not parse. */
export function decodeChangeRow(value: Buffer): { hash: Buffer; slots: NodeSlot[] } {
  if (value.length < HASH_BYTES) throw invalidInput(`a change-index row starts with a ${HASH_BYTES}-byte hash, got ${value.length} bytes`);
  const slots: NodeSlot[] = [];
  let at = HASH_BYTES;
  while (at < value.length) {
    const tag = value[at]!;
    if (tag !== ACCOUNT_TAG && tag !== STORAGE_TAG) throw invalidInput(`change-index record tag ${tag} at offset ${at}`);
    const start = at + 1;
    const pathAt = tag === STORAGE_TAG ? start + HASHED_ADDRESS_BYTES : start;
    const length = value[pathAt];
    if (length === undefined || length > MAX_PATH_NIBBLES) throw invalidInput(`change-index record at offset ${at} has no path key`);
    at = pathAt + pathKeyBytes(length);
    if (at > value.length) throw invalidInput(`change-index record at offset ${start - 1} runs past the end`);
    slots.push({ kind: tag === STORAGE_TAG ? "storage" : "account", prefix: value.subarray(start, at) });
  }
  return { hash: value.subarray(0, HASH_BYTES), slots };
}

/** A block record: `number ‖ hash`. */
export function encodeBlockRef(ref: BlockRef): Buffer {
  return Buffer.concat([numberKey(ref.number), ref.hash]);
}

/** The block of a block record, or undefined when the bytes are not one. */
export function decodeBlockRef(b: Buffer): BlockRef | undefined {
  if (b.length !== BLOCK_RECORD_BYTES) return undefined;
  return { number: readNumber(b), hash: new Uint8Array(b.subarray(8)) };
}
