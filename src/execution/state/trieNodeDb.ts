/**
 * The trie-node database behind @ethereumjs/mpt: reads the store's `trie` sub-database and
 * buffers new nodes in memory until the block that produced them commits (in the same
 * LMDB transaction as the block). Nodes are content-addressed and never deleted, so the
 * state of every stored block stays provable (eth_getProof at any block).
 */
import type { BatchDBOp, DB, EncodingOpts } from "@ethereumjs/util";
import { TRIE_NODE_CACHE_NODES } from "../../config/constants.js";
import { LruMap } from "../../util/lru.js";

/**
 * Trie nodes read from (or about to be written to) the chain store, by hex hash. Nodes are
 * content-addressed and never change, so one cache serves every block of this thread: the
 * upper levels of the account trie are read by every block's state-root computation.
 */
const storeNodes = new LruMap<string, Uint8Array>(TRIE_NODE_CACHE_NODES);

/** Where existing trie nodes are read from: the chain store, or a witness of preimages. */
export interface TrieNodeSource {
  getTrieNode(hash: Uint8Array): Uint8Array | undefined;
}

/** Node reads/writes keyed by unprefixed hex hash, values as bytes. */
export class TrieNodeDb implements DB<string, Uint8Array> {
  /** Nodes written since the last {@link takePending}. */
  pending = new Map<string, Uint8Array>();

  /** Whether reads go through the thread's node cache (the chain store's nodes; not a witness's). */
  private readonly cached: boolean;

  constructor(
    private readonly store: TrieNodeSource | undefined,
    opts: { cache?: boolean } = {},
  ) {
    this.cached = opts.cache ?? store !== undefined;
  }

  async get(key: string, _opts?: EncodingOpts): Promise<Uint8Array | undefined> {
    return this.getSync(key);
  }

  getSync(key: string): Uint8Array | undefined {
    const p = this.pending.get(key);
    if (p !== undefined) return p;
    if (this.store === undefined) return undefined;
    const cached = this.cached ? storeNodes.get(key) : undefined;
    if (cached !== undefined) return cached;
    const v = this.store.getTrieNode(Buffer.from(key, "hex"));
    if (v === undefined) return undefined;
    const node = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    if (this.cached) storeNodes.set(key, node);
    return node;
  }

  async put(key: string, val: Uint8Array, _opts?: EncodingOpts): Promise<void> {
    this.pending.set(key, val);
  }

  /** Buffers a new node (the state trie's batch update, trieUpdate.ts). */
  putSync(key: string, val: Uint8Array): void {
    this.pending.set(key, val);
  }

  /** Nodes are never deleted (see module doc). */
  async del(_key: string, _opts?: EncodingOpts): Promise<void> {}

  async batch(ops: BatchDBOp<string, Uint8Array>[]): Promise<void> {
    for (const op of ops) if (op.type === "put") this.pending.set(op.key, op.value);
  }

  shallowCopy(): DB<string, Uint8Array> {
    return this;
  }

  open(): Promise<void> {
    return Promise.resolve();
  }

  /** Returns and forgets the buffered nodes (to be committed with the block; the next block reads them from the cache). */
  takePending(): Map<string, Uint8Array> {
    const p = this.pending;
    this.pending = new Map();
    if (this.cached) for (const [k, v] of p) storeNodes.set(k, v);
    return p;
  }
}
