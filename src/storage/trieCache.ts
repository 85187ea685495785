/**
 * The per-thread cache of the latest state's trie nodes (storage/stateTrieSource.ts reads through
 * it), keyed by trie and path and **validated by hash**: an entry answers only when the parent's
 * reference is the hash it was stored under, so a stale entry never answers for another state and
 * no thread needs to be told of commits. Only the upper levels are kept
 * ({@link TRIE_CACHE_ACCOUNT_DEPTH}, {@link TRIE_CACHE_STORAGE_DEPTH}): every block's state root
 * walks them, while leaves and deep nodes are read about once per change and would evict them.
 *
 * Commits put the nodes they wrote here ({@link cacheCommittedTries}): those are the nodes the next
 * block's root walks first, and read back from the store they would all be misses, their hashes
 * having changed.
 */
import { TRIE_CACHE_ACCOUNT_DEPTH, TRIE_CACHE_STORAGE_DEPTH, TRIE_PATH_CACHE_NODES } from "./constants.js";
import { LruMap } from "../util/lru.js";
import { keccak256 } from "../util/keccak.js";
import type { TrieNodeRead } from "./trie/source.js";
import type { StateTries } from "./trie/stateTries.js";
import { bytesEqual } from "../util/bytes.js";

/** A cached read: the hash it was read under and the node. */
interface Cached {
  hash: Uint8Array;
  read: TrieNodeRead;
}

const cache = new LruMap<string, Cached>(TRIE_PATH_CACHE_NODES);

/** The cache key of a node: the trie's tag ("" for the account trie, the hashed address's hex) and the path string. */
export function trieCacheKey(tag: string, path: string): string {
  return tag + path;
}

/** Whether a node at `depth` of the account trie (`storage` false) or a storage trie is kept. */
export function cachedDepth(depth: number, storage: boolean): boolean {
  return depth <= (storage ? TRIE_CACHE_STORAGE_DEPTH : TRIE_CACHE_ACCOUNT_DEPTH);
}

/** The cached node at `key` when it was stored under `hash`. */
export function trieCacheGet(key: string, hash: Uint8Array): TrieNodeRead | undefined {
  const hit = cache.get(key);
  return hit !== undefined && bytesEqual(hit.hash, hash) ? hit.read : undefined;
}

/** Caches a stored node read under `hash`. */
export function trieCacheSet(key: string, hash: Uint8Array, read: TrieNodeRead): void {
  cache.set(key, { hash: Uint8Array.from(hash), read });
}

/** Puts the upper-level stored nodes a committed state wrote in this thread's cache. */
export function cacheCommittedTries(tries: StateTries): void {
  const put = (tag: string, entries: Map<string, TrieNodeRead | null>, storage: boolean): void => {
    for (const [p, e] of entries) {
      if (e === null || e.rlp === undefined || !cachedDepth(p.length, storage)) continue;
      cache.set(trieCacheKey(tag, p), { hash: e.hash ?? keccak256(e.rlp), read: e });
    }
  };
  put("", tries.account.entries, false);
  for (const [tag, overlay] of tries.storage) put(tag, overlay.entries, true);
}
