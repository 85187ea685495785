/**
 * The chain store: one LMDB environment holding blocks, receipts, indexes, flat state,
 * trie nodes and state history. Every block commits in one LMDB write transaction, so a
 * crash never leaves half a block. Worker threads open the same environment read-only and
 * read it concurrently (LMDB readers never block the writer).
 *
 * Layout (sub-database: key → value):
 * - `headers`:   blockHash → header RLP
 * - `bodies`:    blockHash → body RLP ([txs, uncles, withdrawals?])
 * - `senders`:   blockHash → concatenated 20-byte senders of the block's transactions
 * - `receipts`:  blockHash → msgpack [[type, status|root, cumulativeGas, logs]...]
 * - `canonical`: number(8) → blockHash (canonical chain only)
 * - `txIndex`:   txHash → blockHash(32) ++ index(4) (canonical chain only)
 * - `meta`:      string → value (head/safe/finalized hashes, genesis hash, chain config)
 * - `accounts`:  address → account RLP [nonce, balance, storageRoot, codeHash] (latest state)
 * - `storage`:   address ++ slot → value, leading zeros stripped (latest state; zero = absent)
 * - `code`:      codeHash → bytecode
 * - `trie`:      nodeHash → trie node RLP (account and storage tries; nodes are never deleted)
 * - `accountHistory`: address ++ block(8) → account RLP before that block ("" = absent)
 * - `storageHistory`: address ++ slot ++ block(8) → value before that block
 * - `changeSets`: block(8) ++ 'a'|'s' ++ address[++slot] → "" (what a block changed; for unwinding and pruning)
 */
import { open, type Database, type RootDatabase } from "lmdb";
import { Packr } from "msgpackr";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Log, StoredReceipt } from "./types.js";
import { LMDB_MAP_SIZE } from "../config/constants.js";
import { accountHistoryKey, changeSetKey, numberKey, prefixEnd, storageHistoryKey, storageKey } from "./keys.js";

const packr = new Packr({ useRecords: false, moreTypes: false });

type Bin = Database<Buffer, Buffer>;

/** Names of the meta keys. */
export const MetaKey = {
  head: "head",
  safe: "safe",
  finalized: "finalized",
  genesis: "genesis",
  genesisJson: "genesisJson",
  /** Lowest block whose state history is still kept (pruning horizon). */
  historyFloor: "historyFloor",
  archive: "archive",
  /** JSON of the upgrades the node's sources schedule that basalt cannot run past (blockchain/upgradeGuard.ts). */
  unknownUpgrades: "unknownUpgrades",
} as const;

/** A change to one account made by a block: the value before and after (undefined = absent). */
export interface AccountChange {
  address: Uint8Array;
  before: Uint8Array | undefined;
  after: Uint8Array | undefined;
}

/** A change to one storage slot made by a block (values with leading zeros stripped; empty = zero). */
export interface StorageChange {
  address: Uint8Array;
  slot: Uint8Array;
  before: Uint8Array;
  after: Uint8Array;
}

/** Everything one block writes, committed atomically by {@link ChainStore.commitBlock}. */
export interface BlockWrite {
  hash: Uint8Array;
  number: bigint;
  headerRlp: Uint8Array;
  bodyRlp: Uint8Array;
  senders: Uint8Array[];
  receipts: StoredReceipt[];
  txHashes: Uint8Array[];
  /** When true the block becomes the canonical head: indexes and flat state are written. */
  canonical: boolean;
  accountChanges: AccountChange[];
  storageChanges: StorageChange[];
  code: Map<string, Uint8Array>;
  trieNodes: Map<string, Uint8Array>;
}

function buf(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}

function hexKey(h: string): Buffer {
  return Buffer.from(h.startsWith("0x") ? h.slice(2) : h, "hex");
}

/**
 * Handle on a basalt datadir's chain database. Open it once per thread.
 */
export class ChainStore {
  readonly root: RootDatabase;
  readonly headers: Bin;
  readonly bodies: Bin;
  readonly senders: Bin;
  readonly receipts: Bin;
  readonly canonical: Bin;
  readonly txIndex: Bin;
  readonly meta: Database<unknown, string>;
  readonly accounts: Bin;
  readonly storage: Bin;
  readonly code: Bin;
  readonly trie: Bin;
  readonly accountHistory: Bin;
  readonly storageHistory: Bin;
  readonly changeSets: Bin;

  private constructor(readonly path: string, readOnly: boolean) {
    this.root = open({ path, maxDbs: 32, mapSize: LMDB_MAP_SIZE, readOnly, compression: false, noMemInit: true });
    const bin = (name: string): Bin =>
      this.root.openDB({ name, encoding: "binary", keyEncoding: "binary" }) as unknown as Bin;
    this.headers = bin("headers");
    this.bodies = bin("bodies");
    this.senders = bin("senders");
    this.receipts = bin("receipts");
    this.canonical = bin("canonical");
    this.txIndex = bin("txIndex");
    this.meta = this.root.openDB({ name: "meta", encoding: "msgpack", keyEncoding: "ordered-binary" }) as Database<unknown, string>;
    this.accounts = bin("accounts");
    this.storage = bin("storage");
    this.code = bin("code");
    this.trie = bin("trie");
    this.accountHistory = bin("accountHistory");
    this.storageHistory = bin("storageHistory");
    this.changeSets = bin("changeSets");
  }

  /** Opens (creating if needed) the store of a datadir. */
  static open(datadir: string, opts: { readOnly?: boolean } = {}): ChainStore {
    const path = join(datadir, "chain");
    if (opts.readOnly !== true) mkdirSync(path, { recursive: true });
    return new ChainStore(path, opts.readOnly === true);
  }

  /** Closes the environment (flushes pending writes). */
  async close(): Promise<void> {
    await this.root.close();
  }

  // ---- blocks -------------------------------------------------------------------------

  getHeaderRlp(hash: Uint8Array): Buffer | undefined {
    return this.headers.get(buf(hash));
  }
  getBodyRlp(hash: Uint8Array): Buffer | undefined {
    return this.bodies.get(buf(hash));
  }
  getSenders(hash: Uint8Array): Uint8Array[] | undefined {
    const v = this.senders.get(buf(hash));
    if (v === undefined) return undefined;
    const out: Uint8Array[] = [];
    for (let i = 0; i < v.length; i += 20) out.push(v.subarray(i, i + 20));
    return out;
  }
  getReceipts(hash: Uint8Array): StoredReceipt[] | undefined {
    const v = this.receipts.get(buf(hash));
    if (v === undefined) return undefined;
    return decodeReceipts(v);
  }
  hasBlock(hash: Uint8Array): boolean {
    return this.headers.doesExist(buf(hash));
  }
  getCanonicalHash(n: bigint): Uint8Array | undefined {
    return this.canonical.get(numberKey(n));
  }
  getTxLocation(txHash: Uint8Array): { blockHash: Uint8Array; index: number } | undefined {
    const v = this.txIndex.get(buf(txHash));
    if (v === undefined) return undefined;
    return { blockHash: v.subarray(0, 32), index: v.readUInt32BE(32) };
  }

  // ---- meta ---------------------------------------------------------------------------

  getMeta<T>(key: string): T | undefined {
    return this.meta.get(key) as T | undefined;
  }
  putMetaSync(key: string, value: unknown): void {
    this.meta.putSync(key, value);
  }
  getPointer(key: "head" | "safe" | "finalized" | "genesis"): Uint8Array | undefined {
    const v = this.meta.get(key) as Uint8Array | undefined;
    return v === undefined ? undefined : new Uint8Array(v);
  }

  // ---- state --------------------------------------------------------------------------

  getAccountRlp(address: Uint8Array): Buffer | undefined {
    return this.accounts.get(buf(address));
  }
  getStorageValue(address: Uint8Array, slot: Uint8Array): Buffer | undefined {
    return this.storage.get(storageKey(address, slot));
  }
  getCode(codeHash: Uint8Array): Buffer | undefined {
    return this.code.get(buf(codeHash));
  }
  getTrieNode(hash: Uint8Array): Buffer | undefined {
    return this.trie.get(buf(hash));
  }
  /** All flat storage slots of an account (for storage clearing and dumps). */
  *storageSlots(address: Uint8Array): Generator<{ slot: Buffer; value: Buffer }> {
    for (const { key, value } of this.storage.getRange({ start: buf(address), end: prefixEnd(address) })) {
      yield { slot: key.subarray(20), value };
    }
  }

  /**
   * Account RLP as of the end of block `block` (undefined = absent), from the history index:
   * the first change of this account after `block` recorded the value before it.
   * The caller checks that history reaches `block` (Chain.oldestStateBlock).
   */
  getHistoricalAccountRlp(address: Uint8Array, block: bigint): Buffer | undefined {
    for (const { key, value } of this.accountHistory.getRange({
      start: accountHistoryKey(address, block + 1n),
      end: prefixEnd(address),
      limit: 1,
    })) {
      void key;
      return value.length === 0 ? undefined : value;
    }
    return this.getAccountRlp(address);
  }

  /** Storage value as of the end of block `block` (empty buffer = zero). */
  getHistoricalStorage(address: Uint8Array, slot: Uint8Array, block: bigint): Buffer | undefined {
    const prefix = storageKey(address, slot);
    for (const { value } of this.storageHistory.getRange({
      start: storageHistoryKey(address, slot, block + 1n),
      end: prefixEnd(prefix),
      limit: 1,
    })) {
      return value;
    }
    return this.getStorageValue(address, slot);
  }

  // ---- writes -------------------------------------------------------------------------

  /** Commits one block (and, when canonical, its state changes and indexes) atomically. */
  commitBlock(w: BlockWrite, pointers?: { head?: Uint8Array; safe?: Uint8Array; finalized?: Uint8Array }): void {
    this.root.transactionSync(() => {
      this.writeBlockData(w);
      if (w.canonical) this.applyCanonical(w);
      if (pointers !== undefined) this.writePointers(pointers);
    });
  }

  /** Writes headers, bodies, senders, receipts, code and trie nodes (no canonical effects). */
  private writeBlockData(w: BlockWrite): void {
    const h = buf(w.hash);
    this.headers.put(h, buf(w.headerRlp));
    this.bodies.put(h, buf(w.bodyRlp));
    this.senders.put(h, Buffer.concat(w.senders.map(buf)));
    this.receipts.put(h, encodeReceipts(w.receipts));
    for (const [k, v] of w.code) this.code.put(hexKey(k), buf(v));
    for (const [k, v] of w.trieNodes) this.trie.put(hexKey(k), buf(v));
  }

  /** Makes a stored block canonical: number index, tx index, flat state, history. */
  private applyCanonical(w: BlockWrite): void {
    const h = buf(w.hash);
    this.canonical.put(numberKey(w.number), h);
    w.txHashes.forEach((txh, i) => {
      const loc = Buffer.allocUnsafe(36);
      loc.set(w.hash, 0);
      loc.writeUInt32BE(i, 32);
      this.txIndex.put(buf(txh), loc);
    });
    const empty = Buffer.alloc(0);
    for (const c of w.accountChanges) {
      const a = buf(c.address);
      this.accountHistory.put(accountHistoryKey(c.address, w.number), c.before === undefined ? empty : buf(c.before));
      this.changeSets.put(changeSetKey(w.number, Buffer.concat([Buffer.from("a"), a])), empty);
      if (c.after === undefined) this.accounts.remove(a);
      else this.accounts.put(a, buf(c.after));
    }
    for (const c of w.storageChanges) {
      const k = storageKey(c.address, c.slot);
      this.storageHistory.put(storageHistoryKey(c.address, c.slot, w.number), buf(c.before));
      this.changeSets.put(changeSetKey(w.number, Buffer.concat([Buffer.from("s"), k])), empty);
      if (c.after.length === 0) this.storage.remove(k);
      else this.storage.put(k, buf(c.after));
    }
  }

  /** Writes forkchoice pointers. */
  private writePointers(p: { head?: Uint8Array; safe?: Uint8Array; finalized?: Uint8Array }): void {
    if (p.head !== undefined) this.meta.put(MetaKey.head, buf(p.head));
    if (p.safe !== undefined) this.meta.put(MetaKey.safe, buf(p.safe));
    if (p.finalized !== undefined) this.meta.put(MetaKey.finalized, buf(p.finalized));
  }

  /** Updates forkchoice pointers atomically. */
  setPointers(p: { head?: Uint8Array; safe?: Uint8Array; finalized?: Uint8Array }): void {
    this.root.transactionSync(() => this.writePointers(p));
  }

  /**
   * Removes the canonical block `number` (the current head) from the canonical chain:
   * restores the flat state from its change set, drops its indexes and history entries.
   * Block data (header, body, receipts) stays, so the block can be re-applied later.
   */
  unwindHead(number: bigint, txHashes: Uint8Array[], newHead: Uint8Array): void {
    this.root.transactionSync(() => {
      const start = numberKey(number);
      for (const { key } of this.changeSets.getRange({ start, end: prefixEnd(start) })) {
        const kind = String.fromCharCode(key[8]);
        const rest = key.subarray(9);
        if (kind === "a") {
          const hk = accountHistoryKey(rest, number);
          const before = this.accountHistory.get(hk);
          if (before === undefined || before.length === 0) this.accounts.remove(Buffer.from(rest));
          else this.accounts.put(Buffer.from(rest), before);
          this.accountHistory.remove(hk);
        } else {
          const addr = rest.subarray(0, 20);
          const slot = rest.subarray(20, 52);
          const hk = storageHistoryKey(addr, slot, number);
          const before = this.storageHistory.get(hk);
          if (before === undefined || before.length === 0) this.storage.remove(Buffer.from(rest));
          else this.storage.put(Buffer.from(rest), before);
          this.storageHistory.remove(hk);
        }
        this.changeSets.remove(Buffer.from(key));
      }
      this.canonical.remove(start);
      for (const t of txHashes) this.txIndex.remove(buf(t));
      this.meta.put(MetaKey.head, buf(newHead));
    });
  }

  /**
   * Drops state history of blocks below `floor` (keeps change sets' effects in flat state).
   * Called after each block when not running as an archive node.
   */
  pruneHistory(floor: bigint): void {
    const current = BigInt((this.getMeta<number | string>(MetaKey.historyFloor) ?? 0).toString());
    if (floor <= current) return;
    this.root.transactionSync(() => {
      for (let n = current; n < floor; n++) {
        const start = numberKey(n);
        for (const { key } of this.changeSets.getRange({ start, end: prefixEnd(start) })) {
          const rest = key.subarray(9);
          if (key[8] === 0x61) this.accountHistory.remove(accountHistoryKey(rest, n));
          else this.storageHistory.remove(storageHistoryKey(rest.subarray(0, 20), rest.subarray(20, 52), n));
          this.changeSets.remove(Buffer.from(key));
        }
      }
      this.meta.put(MetaKey.historyFloor, floor.toString());
    });
  }
}

// ---- receipt codec ----------------------------------------------------------------------

type PackedLog = [Uint8Array, Uint8Array[], Uint8Array];
/** [type, status|root, cumulativeGas, logs, bloom, depositNonce?, depositReceiptVersion?] */
type PackedReceipt = [number, number | Uint8Array, number, PackedLog[], Uint8Array, number?, number?];

/** msgpack encoding of a block's receipts. */
export function encodeReceipts(receipts: StoredReceipt[]): Buffer {
  const packed: PackedReceipt[] = receipts.map((r) => {
    const p: PackedReceipt = [
      r.type,
      r.root !== undefined ? r.root : (r.status ?? 0),
      Number(r.cumulativeGasUsed),
      r.logs.map((l): PackedLog => [l.address, l.topics, l.data]),
      r.bloom,
    ];
    if (r.depositNonce !== undefined) {
      p.push(Number(r.depositNonce));
      if (r.depositReceiptVersion !== undefined) p.push(r.depositReceiptVersion);
    }
    return p;
  });
  return packr.pack(packed);
}

/** Decodes {@link encodeReceipts}. */
export function decodeReceipts(b: Uint8Array): StoredReceipt[] {
  const packed = packr.unpack(b) as PackedReceipt[];
  return packed.map(([type, s, cum, logs, bloom, depositNonce, depositReceiptVersion]) => {
    const r: StoredReceipt = {
      type,
      cumulativeGasUsed: BigInt(cum),
      logs: logs.map(([address, topics, data]): Log => ({ address, topics, data })),
      bloom,
    };
    if (depositNonce !== undefined) r.depositNonce = BigInt(depositNonce);
    if (depositReceiptVersion !== undefined) r.depositReceiptVersion = depositReceiptVersion;
    if (typeof s === "number") r.status = s === 1 ? 1 : 0;
    else r.root = s;
    return r;
  });
}
