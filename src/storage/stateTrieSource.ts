/**
 * The state tries as the chain store holds them (the latest state): stored nodes from the
 * path-keyed tables `accountTrie` / `storageTrie`, leaves rebuilt from the one flat-state entry
 * under their path (`hashedAccounts` / `hashedStorage`).
 *
 * Reads go through the per-thread cache of ./trieCache.ts (by path, validated by hash): the upper
 * levels of the account trie, which every block's state root walks, stay in it.
 */
import { RLP } from "@ethereumjs/rlp";
import { fullAccountRlp } from "./accountCodec.js";
import { hashedKeyRange, keyHasPrefix, pathKey } from "./trie/path.js";
import { readRecord } from "./trie/record.js";
import { pathString, type NodeHint, type TrieNodeRead, type TrieSource } from "./trie/source.js";
import type { StateTrieSource } from "./trie/stateTries.js";
import { StateTrieError, StateTrieErrorCode } from "./trie/errors.js";
import { trieReadsTotal } from "./stateMetrics.js";
import { cachedDepth, trieCacheGet, trieCacheKey, trieCacheSet } from "./trieCache.js";
import type { ChainStore } from "./store.js";
import { toHex } from "../util/bytes.js";

/** The latest state's tries in a chain store. */
export class StoreTrieSource implements StateTrieSource {
  readonly account: TrieSource;

  constructor(private readonly store: ChainStore) {
    this.account = { node: (path, hash, hint) => this.read(undefined, "", path, hash, hint) };
  }

  storage(hashedAddress: Uint8Array): TrieSource {
    const prefix = Buffer.from(hashedAddress);
    const tag = toHex(hashedAddress);
    return { node: (path, hash, hint) => this.read(prefix, tag, path, hash, hint) };
  }

  private read(prefix: Buffer | undefined, tag: string, path: Uint8Array, hash: Uint8Array, hint: NodeHint): TrieNodeRead | undefined {
    const ck = trieCacheKey(tag, pathString(path));
    const hit = trieCacheGet(ck, hash);
    if (hit !== undefined) {
      trieReadsTotal.inc({ source: "cache" });
      return hit;
    }
    let r: TrieNodeRead | undefined;
    if (hint !== "leaf") r = this.stored(prefix, path);
    if (r === undefined && hint !== "stored") r = this.leaf(prefix, path);
    trieReadsTotal.inc({ source: r === undefined ? "missing" : "disk" });
    if (r !== undefined && r.rlp !== undefined && cachedDepth(path.length, prefix !== undefined)) trieCacheSet(ck, hash, r);
    return r;
  }

  private stored(prefix: Buffer | undefined, path: Uint8Array): TrieNodeRead | undefined {
    const db = prefix === undefined ? this.store.accountTrie : this.store.storageTrie;
    const rec = db.get(pathKey(path, prefix));
    if (rec === undefined) return undefined;
    const r = readRecord(rec);
    if (r === undefined) {
      throw new StateTrieError({ code: StateTrieErrorCode.BAD_NODE, where: pathString(path) }, `the ${prefix === undefined ? "account" : "storage"} trie record at path ${pathString(path) || "(root)"} has an unknown tag ${rec[0]}`);
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
