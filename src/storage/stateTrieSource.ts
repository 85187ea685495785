/**
 * The state tries as the chain store holds them (the latest state): stored nodes from the
 * path-keyed tables `accountTrie` / `storageTrie`, leaves rebuilt from the one flat-state entry
 * under their path (`hashedAccounts` / `hashedStorage`).
 *
 * Reads go through a per-thread cache keyed by path and **validated by hash**: an entry answers
 * only when the parent's reference is the hash it was read under, so a cache filled before the
 * head moved never answers for the new state, and no thread needs to be told of commits. The
 * upper levels of the account trie, which every block's state root walks, stay in it.
 */
import { RLP } from "@ethereumjs/rlp";
import { fullAccountRlp } from "./accountCodec.js";
import { TRIE_CACHE_ACCOUNT_DEPTH, TRIE_CACHE_STORAGE_DEPTH, TRIE_PATH_CACHE_NODES } from "../config/constants.js";
import { LruMap } from "../util/lru.js";
import { hashedKeyRange, keyHasPrefix, pathKey } from "./trie/path.js";
import { readRecord } from "./trie/record.js";
import { pathString, type NodeHint, type TrieNodeRead, type TrieSource } from "./trie/source.js";
import type { StateTrieSource } from "./trie/stateTries.js";
import { StateTrieError, StateTrieErrorCode } from "./trie/errors.js";
import { trieReadsTotal } from "./stateMetrics.js";
import type { ChainStore } from "./store.js";

/** A cached read: the hash it was read under and the node. */
interface Cached {
  hash: Uint8Array;
  read: TrieNodeRead;
}

/** Trie nodes read on this thread, by trie and path, validated by hash ({@link TRIE_PATH_CACHE_NODES}). */
const cache = new LruMap<string, Cached>(TRIE_PATH_CACHE_NODES);

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

/** The latest state's tries in a chain store. */
export class StoreTrieSource implements StateTrieSource {
  readonly account: TrieSource;

  constructor(private readonly store: ChainStore) {
    this.account = { node: (path, hash, hint) => this.read(undefined, "", path, hash, hint) };
  }

  storage(hashedAddress: Uint8Array): TrieSource {
    const prefix = Buffer.from(hashedAddress);
    const tag = hex(hashedAddress);
    return { node: (path, hash, hint) => this.read(prefix, tag, path, hash, hint) };
  }

  private read(prefix: Buffer | undefined, tag: string, path: Uint8Array, hash: Uint8Array, hint: NodeHint): TrieNodeRead | undefined {
    const ck = tag + pathString(path);
    const hit = cache.get(ck);
    if (hit !== undefined && equal(hit.hash, hash)) {
      trieReadsTotal.inc({ source: "cache" });
      return hit.read;
    }
    let r: TrieNodeRead | undefined;
    if (hint !== "leaf") r = this.stored(prefix, path);
    if (r === undefined && hint !== "stored") r = this.leaf(prefix, path);
    trieReadsTotal.inc({ source: r === undefined ? "missing" : "disk" });
    // Only the upper levels' stored nodes: leaves and deep nodes are read about once per change, and would evict them.
    if (r !== undefined && r.rlp !== undefined && path.length <= (prefix === undefined ? TRIE_CACHE_ACCOUNT_DEPTH : TRIE_CACHE_STORAGE_DEPTH)) {
      cache.set(ck, { hash: Uint8Array.from(hash), read: r });
    }
    return r;
  }

  private stored(prefix: Buffer | undefined, path: Uint8Array): TrieNodeRead | undefined {
    const db = prefix === undefined ? this.store.accountTrie : this.store.storageTrie;
    const rec = db.get(pathKey(path, prefix));
    if (rec === undefined) return undefined;
    const r = readRecord(rec);
    if (r === undefined) {
      throw new StateTrieError(StateTrieErrorCode.BAD_NODE, `the ${prefix === undefined ? "account" : "storage"} trie record at path ${pathString(path) || "(root)"} has an unknown tag ${rec[0]}`, {
        where: pathString(path),
      });
    }
    return { rlp: r.rlp, storedMask: r.storedMask, kind: r.kind };
  }

  /** The one flat-state entry under `path`: the leaf there. */
  private leaf(prefix: Buffer | undefined, path: Uint8Array): TrieNodeRead | undefined {
    const range = hashedKeyRange(path, prefix);
    const db = prefix === undefined ? this.store.hashedAccounts : this.store.hashedStorage;
    const offset = prefix === undefined ? 0 : prefix.length;
    for (const { key, value } of db.getRange({ start: range.start, end: range.end, limit: 1 })) {
      if (!keyHasPrefix(key, path, offset)) return undefined;
      const leafKey = new Uint8Array(key.subarray(offset, offset + 32));
      return { leafKey, value: prefix === undefined ? fullAccountRlp(value) : RLP.encode(value) };
    }
    return undefined;
  }
}
