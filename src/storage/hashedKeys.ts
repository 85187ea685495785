/**
 * The flat state's and the tries' keys from plain ones: keccak256 of an address, cached per thread
 * ({@link HASHED_ADDRESS_CACHE_ENTRIES}: a hot contract is read by every call, and a migration
 * meets the same addresses over and over in the history).
 */
import { HASHED_ADDRESS_CACHE_ENTRIES } from "./constants.js";
import { keccak256 } from "../util/keccak.js";
import { LruMap } from "../util/lru.js";
import { toHex } from "../util/bytes.js";

const hashedAddresses = new LruMap<string, Uint8Array>(HASHED_ADDRESS_CACHE_ENTRIES);

/** keccak256 of an address (the flat state's and the trie's key), cached. */
export function hashAddress(address: Uint8Array): Uint8Array {
  const k = toHex(address);
  const hit = hashedAddresses.get(k);
  if (hit !== undefined) return hit;
  const h = keccak256(address);
  hashedAddresses.set(k, h);
  return h;
}
