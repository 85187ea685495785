/**
 * The chain store: one LMDB environment holding blocks, receipts, indexes, the state (flat and
 * its tries) and state history. Every block commits in one LMDB write transaction, so a crash
 * never leaves half a block. Worker threads open the same environment read-only and read it
 * concurrently (LMDB readers never block the writer).
 *
 * Layout (sub-database: key → value). State keys are **hashed**: keccak256 of the address
 * ("hashedAddress") and of the slot ("hashedSlot"), the trie's own keys, so the flat state is the
 * tries' leaves in trie order (and what snapshots and state sync deliver):
 * - `headers`:   blockHash → header RLP
 * - `bodies`:    blockHash → body RLP ([txs, uncles, withdrawals?])
 * - `senders`:   blockHash → concatenated 20-byte senders of the block's transactions
 * - `receipts`:  blockHash → msgpack [[type, status|root, cumulativeGas, logs]...]
 * - `canonical`: number(8) → blockHash (canonical chain only)
 * - `txIndex`:   txHash → blockHash(32) ++ index(4) (canonical chain only)
 * - `meta`:      string → value (head/safe/finalized hashes, genesis, chain config, layout version, state root)
 * - `hashedAccounts`: hashedAddress → slim account RLP (accountCodec.ts) (latest state)
 * - `hashedStorage`:  hashedAddress ++ hashedSlot → value, leading zeros stripped (latest state; zero = absent)
 * - `code`:      codeHash → bytecode
 * - `accountTrie`: path key → node record (trie/path.ts, trie/record.ts): the latest account trie's
 *   branches and extensions by path, overwritten in place; leaves are the flat entries
 * - `storageTrie`: hashedAddress ++ path key → node record: every account's storage trie, likewise
 * - `accountHistory`: hashedAddress ++ block(8) → slim account RLP before that block ("" = absent)
 * - `storageHistory`: hashedAddress ++ hashedSlot ++ block(8) → value before that block
 * - `changeSets`: block(8) ++ 'a'|'s' ++ hashedAddress[++hashedSlot] → "" (what a block changed;
 *   for unwinding, historical views and pruning)
 * - `logIndex`: tag(1) ++ address(20) | topic(32) ++ shardEnd(8) → runs of canonical block numbers
 *   holding such a log (tag 0 = address, 1–4 = topic position 0–3; storage/logIndexCodec.ts), for
 *   eth_getLogs; covers the canonical blocks from meta `logIndexFrom` on
 * History is kept for `--history.blocks` blocks (every block with `--archive`); the tries hold
 * the latest state only: an older state's tries are the latest ones with that state's changes
 * reverted in memory (storage/stateRevert.ts), checked against its header's state root.
 */
import { open, type Database, type RootDatabase } from "lmdb";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { StoredReceipt } from "./types.js";
import { LMDB_MAP_SIZE } from "./constants.js";
import { cacheCommittedTries } from "./trieCache.js";
import { accountHistoryKey, changeSetKey, HASHED_KEY_BYTES, numberKey, prefixEnd, storageHistoryKey, storageKey } from "./keys.js";
import { StorageError, StorageErrorCode } from "./errors.js";
import { branchRecord, extensionRecord } from "./trie/record.js";
import { pathKey, subtreeRange } from "./trie/path.js";
import { pathOfString, type TrieOverlay } from "./trie/source.js";
import type { StateTries } from "./trie/stateTries.js";
import { trieWritesTotal } from "./stateMetrics.js";
import { asBuffer } from "../util/bytes.js";
import { indexBlockLogs, pruneLogIndexBelow, unindexBlockLogs } from "./logIndex.js";
import { logIndexWriteBytesTotal, logIndexWriteSeconds } from "./logIndexMetrics.js";
import { decodeReceiptAt, decodeReceiptLogs, decodeReceipts, encodeReceipts, type ReceiptAt } from "./receiptCodec.js";


type Bin = Database<Buffer, Buffer>;

/**
 * Version of the state layout this code reads and writes (meta `stateLayout`): 2 = hashed flat
 * state and path-keyed tries. A datadir written before (no version: plain-keyed flat state and a
 * hash-keyed `trie` table) is refused at open with the migration command named.
 */
export const STATE_LAYOUT_VERSION = 2;

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
  /** {@link STATE_LAYOUT_VERSION} of the datadir. */
  stateLayout: "stateLayout",
  /** The state root the flat state and tries hold (the head's): a commit must build on it. */
  stateRoot: "stateRoot",
  /** Where an interrupted bulk load resumes (storage/bulkLoad.ts); absent when none runs. */
  bulkLoad: "bulkLoad",
  /** Where an interrupted `basalt db migrate` resumes (storage/migrate.ts); absent when none runs. */
  migration: "migration",
  /**
   * First block the log index covers (decimal string): every canonical block from it on is
   * indexed. "0" on a datadir created with the index; the next block's number on a datadir that
   * had none when this basalt first opened it (`basalt db reindex-logs` brings it to 0).
   */
  logIndexFrom: "logIndexFrom",
  /** Where an interrupted `basalt db reindex-logs` resumes (storage/logReindex.ts); absent when none runs. */
  logReindex: "logReindex",
} as const;

/** A change to one account made by a block: the value before and after as slim RLP (undefined = absent). */
export interface AccountChange {
  hashedAddress: Uint8Array;
  /** The address, when the change came from an execution (absent in a revert). */
  address?: Uint8Array;
  before: Uint8Array | undefined;
  after: Uint8Array | undefined;
}

/** A change to one storage slot made by a block (values with leading zeros stripped; empty = zero). */
export interface StorageChange {
  hashedAddress: Uint8Array;
  hashedSlot: Uint8Array;
  /** The address and slot, when known (a wiped account's old slots are known by hash only). */
  address?: Uint8Array;
  slot?: Uint8Array;
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
  /** When true the block becomes the canonical head: indexes, flat state, history and tries are written. */
  canonical: boolean;
  accountChanges: AccountChange[];
  storageChanges: StorageChange[];
  code: Map<string, Uint8Array>;
  /** The state root the block's changes apply to (its parent's). */
  parentStateRoot: Uint8Array;
  /** The block's state root. */
  stateRoot: Uint8Array;
  /** The block's trie changes over its parent's tries. */
  tries: StateTries;
}

function hexKey(h: string): Buffer {
  return Buffer.from(h.startsWith("0x") ? h.slice(2) : h, "hex");
}

function equal(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function hex0x(b: Uint8Array | undefined): string {
  return b === undefined ? "(none)" : "0x" + Buffer.from(b).toString("hex");
}

/** Names of the sub-databases of a datadir written before the hashed layout (version 1). */
const LEGACY_STATE_DBS = ["accounts", "storage", "trie"] as const;

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
  readonly hashedAccounts: Bin;
  readonly hashedStorage: Bin;
  readonly code: Bin;
  readonly accountTrie: Bin;
  readonly storageTrie: Bin;
  readonly accountHistory: Bin;
  readonly storageHistory: Bin;
  readonly changeSets: Bin;
  readonly logIndex: Bin;

  private constructor(
    readonly path: string,
    private readonly readOnly: boolean,
    checkLayout = true,
    mapBytes = LMDB_MAP_SIZE,
    readAhead = true,
    logIndexCheck = checkLayout,
  ) {
    // noReadAhead: MDB_NORDAHEAD (madvise MADV_RANDOM on the map); the environment's first opener in a process decides.
    this.root = open({ path, maxDbs: 32, mapSize: mapBytes, readOnly, compression: false, noMemInit: true, ...(readAhead ? {} : { noReadAhead: true }) });
    const bin = (name: string): Bin =>
      this.root.openDB({ name, encoding: "binary", keyEncoding: "binary" }) as unknown as Bin;
    this.meta = this.root.openDB({ name: "meta", encoding: "msgpack", keyEncoding: "ordered-binary" }) as Database<unknown, string>;
    if (checkLayout) this.checkLayout(readOnly);
    this.headers = bin("headers");
    this.bodies = bin("bodies");
    this.senders = bin("senders");
    this.receipts = bin("receipts");
    this.canonical = bin("canonical");
    this.txIndex = bin("txIndex");
    this.hashedAccounts = bin("hashedAccounts");
    this.hashedStorage = bin("hashedStorage");
    this.code = bin("code");
    this.accountTrie = bin("accountTrie");
    this.storageTrie = bin("storageTrie");
    this.accountHistory = bin("accountHistory");
    this.storageHistory = bin("storageHistory");
    this.changeSets = bin("changeSets");
    this.logIndex = bin("logIndex");
    if (logIndexCheck) this.checkLogIndex(readOnly);
  }

  /**
   * Starts the log index of a datadir that has none: a new store covers every block (from 0), an
   * existing chain the blocks after its head (older ones are scanned until `basalt db
   * reindex-logs` indexes them). Refuses a datadir whose reindex was interrupted: the index is
   * partial until the command finishes.
   */
  private checkLogIndex(readOnly: boolean): void {
    if (this.meta.get(MetaKey.logReindex) !== undefined) {
      const datadir = join(this.path, "..");
      void this.root.close();
      throw new StorageError({ code: StorageErrorCode.LOG_REINDEX_UNFINISHED, datadir }, `datadir ${datadir} has a log index rebuild that did not finish: run \`basalt db reindex-logs --datadir ${datadir}\` again to complete it before starting the node`);
    }
    if (readOnly || this.meta.get(MetaKey.logIndexFrom) !== undefined) return;
    let next = 0n;
    for (const key of this.canonical.getKeys({ reverse: true, limit: 1 })) next = key.readBigUInt64BE(0) + 1n;
    this.meta.putSync(MetaKey.logIndexFrom, next.toString());
  }

  /**
   * The first block the log index covers (every canonical block from it on is indexed); u64 max
   * (none) on a datadir no read-write open has marked yet (only read-only opens of an older one).
   */
  logIndexFrom(): bigint {
    const v = this.getMeta<string | number>(MetaKey.logIndexFrom);
    return v === undefined ? 0xffff_ffff_ffff_ffffn : BigInt(v.toString());
  }

  /**
   * Refuses a datadir of another state layout (never misread one): an initialized datadir
   * without the current {@link STATE_LAYOUT_VERSION} is the plain-keyed layout, which `basalt db
   * migrate` converts. A new (empty) environment is stamped with the current version.
   */
  private checkLayout(readOnly: boolean): void {
    const version = this.meta.get(MetaKey.stateLayout) as number | undefined;
    if (version === STATE_LAYOUT_VERSION) return;
    const initialized = this.meta.get(MetaKey.genesis) !== undefined;
    if (version === undefined && !initialized) {
      if (!readOnly) this.meta.putSync(MetaKey.stateLayout, STATE_LAYOUT_VERSION);
      return;
    }
    const datadir = join(this.path, "..");
    void this.root.close();
    if (version === undefined) {
      throw new StorageError({ code: StorageErrorCode.LAYOUT_OUTDATED, datadir, found: 1, expected: STATE_LAYOUT_VERSION }, `datadir ${datadir} holds the state in the plain-keyed layout of basalt before 0.9 (state layout 1); this basalt reads layout ${STATE_LAYOUT_VERSION}: convert it in place with \`basalt db migrate --datadir ${datadir}\``);
    }
    throw new StorageError({ code: StorageErrorCode.LAYOUT_UNKNOWN, datadir, found: version, expected: STATE_LAYOUT_VERSION }, `datadir ${datadir} has state layout ${String(version)}, this basalt reads layout ${STATE_LAYOUT_VERSION}: use the basalt that wrote it`);
  }

  /**
   * Opens (creating if needed) the store of a datadir. `mapBytes` is the initial memory map
   * (default {@link LMDB_MAP_SIZE}); the map grows past it as the store does. `readAhead: false`
   * turns the kernel's readahead off for the map (LMDB's MDB_NORDAHEAD): the node's reads are
   * random, and with readahead each cold 4 KiB page read brings in up to a megabyte around it —
   * wasted I/O and page cache once the state is larger than RAM. Sequential work (bulk load,
   * verification, export) keeps it on. The first open of the environment in a process decides.
   */
  static open(datadir: string, opts: { readOnly?: boolean; mapBytes?: number; readAhead?: boolean } = {}): ChainStore {
    const path = join(datadir, "chain");
    if (opts.readOnly !== true) mkdirSync(path, { recursive: true });
    return new ChainStore(path, opts.readOnly === true, true, opts.mapBytes, opts.readAhead ?? true);
  }

  /**
   * Opens a datadir's store read-write without checking its state layout, with the sub-databases
   * of the plain-keyed layout beside the current ones: for `basalt db migrate` (storage/migrate.ts)
   * only, which reads {@link MetaKey.stateLayout} itself and converts the older layout.
   */
  static openForMigration(datadir: string): { store: ChainStore; legacy: Record<(typeof LEGACY_STATE_DBS)[number], Bin> } {
    const store = new ChainStore(join(datadir, "chain"), false, false);
    const legacy = Object.fromEntries(LEGACY_STATE_DBS.map((n) => [n, store.root.openDB({ name: n, encoding: "binary", keyEncoding: "binary" }) as unknown as Bin])) as Record<
      (typeof LEGACY_STATE_DBS)[number],
      Bin
    >;
    return { store, legacy };
  }

  /**
   * Opens a datadir's store read-write for `basalt db reindex-logs` (storage/logReindex.ts) only:
   * the state layout is checked, an interrupted rebuild is not refused (the command resumes it).
   */
  static openForLogReindex(datadir: string): ChainStore {
    return new ChainStore(join(datadir, "chain"), false, true, LMDB_MAP_SIZE, true, false);
  }

  /** Closes the environment (flushes pending writes). */
  async close(): Promise<void> {
    // lmdb 3.5's close can wait forever on the flush of a synchronous transaction that followed a
    // `putSync` outside any (a fresh store stamped with its layout, then a bulk load): waiting for
    // every write to be on disk first lets it finish.
    if (!this.readOnly) await this.root.flushed;
    await this.root.close();
  }

  // ---- blocks -------------------------------------------------------------------------

  getHeaderRlp(hash: Uint8Array): Buffer | undefined {
    return this.headers.get(asBuffer(hash));
  }
  getBodyRlp(hash: Uint8Array): Buffer | undefined {
    return this.bodies.get(asBuffer(hash));
  }
  getSenders(hash: Uint8Array): Uint8Array[] | undefined {
    const v = this.senders.get(asBuffer(hash));
    if (v === undefined) return undefined;
    const out: Uint8Array[] = [];
    for (let i = 0; i < v.length; i += 20) out.push(v.subarray(i, i + 20));
    return out;
  }
  getReceipts(hash: Uint8Array): StoredReceipt[] | undefined {
    const v = this.receipts.get(asBuffer(hash));
    if (v === undefined) return undefined;
    return decodeReceipts(v);
  }
  /** The sender of the block's transaction `index` (20 bytes), undefined when not stored or out of range. */
  getSenderAt(hash: Uint8Array, index: number): Uint8Array | undefined {
    const v = this.senders.get(asBuffer(hash));
    if (v === undefined || (index + 1) * 20 > v.length) return undefined;
    return v.subarray(index * 20, index * 20 + 20);
  }
  /** The block's receipt `index` with what formatting it needs of the ones before it ({@link decodeReceiptAt}); undefined when not stored or out of range. */
  getReceiptAt(hash: Uint8Array, index: number): ReceiptAt | undefined {
    const v = this.receipts.get(asBuffer(hash));
    return v === undefined ? undefined : decodeReceiptAt(v, index);
  }
  hasBlock(hash: Uint8Array): boolean {
    return this.headers.doesExist(asBuffer(hash));
  }
  getCanonicalHash(n: bigint): Uint8Array | undefined {
    return this.canonical.get(numberKey(n));
  }
  getTxLocation(txHash: Uint8Array): { blockHash: Uint8Array; index: number } | undefined {
    const v = this.txIndex.get(asBuffer(txHash));
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
  /** The state root the flat state and tries hold (undefined before genesis). */
  getStateRoot(): Uint8Array | undefined {
    const v = this.meta.get(MetaKey.stateRoot) as Uint8Array | undefined;
    return v === undefined ? undefined : new Uint8Array(v);
  }

  // ---- state --------------------------------------------------------------------------

  /** Slim RLP of the account with this hashed address in the latest state. */
  getAccount(hashedAddress: Uint8Array): Buffer | undefined {
    return this.hashedAccounts.get(asBuffer(hashedAddress));
  }
  /** A slot's value (leading zeros stripped) in the latest state, by hashed address and slot. */
  getStorage(hashedAddress: Uint8Array, hashedSlot: Uint8Array): Buffer | undefined {
    return this.hashedStorage.get(storageKey(hashedAddress, hashedSlot));
  }
  getCode(codeHash: Uint8Array): Buffer | undefined {
    return this.code.get(asBuffer(codeHash));
  }
  /** All flat storage slots of an account, by hashed slot, in trie order (storage clears and dumps). */
  *storageSlots(hashedAddress: Uint8Array): Generator<{ hashedSlot: Buffer; value: Buffer }> {
    for (const { key, value } of this.hashedStorage.getRange({ start: asBuffer(hashedAddress), end: prefixEnd(hashedAddress) })) {
      yield { hashedSlot: key.subarray(HASHED_KEY_BYTES), value };
    }
  }

  /**
   * Slim account RLP as of the end of block `block` (undefined = absent), from the history
   * index: the first change of this account after `block` recorded the value before it.
   * The caller checks that history reaches `block` (Chain.oldestStateBlock).
   */
  getHistoricalAccount(hashedAddress: Uint8Array, block: bigint): Buffer | undefined {
    for (const { value } of this.accountHistory.getRange({
      start: accountHistoryKey(hashedAddress, block + 1n),
      end: prefixEnd(hashedAddress),
      limit: 1,
    })) {
      return value.length === 0 ? undefined : value;
    }
    return this.getAccount(hashedAddress);
  }

  /** Storage value as of the end of block `block` (empty buffer = zero). */
  getHistoricalStorage(hashedAddress: Uint8Array, hashedSlot: Uint8Array, block: bigint): Buffer | undefined {
    const prefix = storageKey(hashedAddress, hashedSlot);
    for (const { value } of this.storageHistory.getRange({
      start: storageHistoryKey(hashedAddress, hashedSlot, block + 1n),
      end: prefixEnd(prefix),
      limit: 1,
    })) {
      return value;
    }
    return this.getStorage(hashedAddress, hashedSlot);
  }

  /** What canonical block `block` changed, from its change set: hashed addresses, and hashed (address, slot) pairs. */
  changeSetOf(block: bigint): { accounts: Buffer[]; slots: [Buffer, Buffer][] } {
    const accounts: Buffer[] = [];
    const slots: [Buffer, Buffer][] = [];
    const start = numberKey(block);
    for (const key of this.changeSets.getKeys({ start, end: prefixEnd(start) })) {
      const rest = key.subarray(9);
      if (key[8] === 0x61) accounts.push(Buffer.from(rest));
      else slots.push([Buffer.from(rest.subarray(0, HASHED_KEY_BYTES)), Buffer.from(rest.subarray(HASHED_KEY_BYTES))]);
    }
    return { accounts, slots };
  }

  // ---- writes -------------------------------------------------------------------------

  /**
   * Commits one block (and, when canonical, its state changes and indexes) atomically. A
   * canonical block must build on the state the store holds (its parent's state root).
   * @throws StorageError `STORAGE_STATE_MISMATCH` when it does not (nothing is written).
   */
  commitBlock(w: BlockWrite, pointers?: { head?: Uint8Array; safe?: Uint8Array; finalized?: Uint8Array }): void {
    this.root.transactionSync(() => {
      if (w.canonical) this.checkParentState(w);
      this.writeBlockData(w);
      if (w.canonical) this.applyCanonical(w);
      if (pointers !== undefined) this.writePointers(pointers);
    });
    // Committed (a nested call commits with its outer transaction; the cache is validated by hash either way).
    if (w.canonical) cacheCommittedTries(w.tries);
  }

  private checkParentState(w: BlockWrite): void {
    const held = this.getStateRoot();
    // Genesis: an empty store holds no state yet.
    if (held === undefined && w.number === 0n) return;
    if (!equal(held, w.parentStateRoot)) {
      throw new StorageError({ code: StorageErrorCode.STATE_MISMATCH, number: w.number.toString() }, `block ${w.number} was executed on state ${hex0x(w.parentStateRoot)}, but the store holds state ${hex0x(held)}: it must be executed again on the current head`);
    }
  }

  /** Writes headers, bodies, senders, receipts and code (no canonical effects). */
  private writeBlockData(w: BlockWrite): void {
    const h = asBuffer(w.hash);
    this.headers.put(h, asBuffer(w.headerRlp));
    this.bodies.put(h, asBuffer(w.bodyRlp));
    this.senders.put(h, Buffer.concat(w.senders.map(asBuffer)));
    this.receipts.put(h, encodeReceipts(w.receipts));
    for (const [k, v] of w.code) this.code.put(hexKey(k), asBuffer(v));
  }

  /** Makes a stored block canonical: number index, tx index, flat state, history, tries. */
  private applyCanonical(w: BlockWrite): void {
    const h = asBuffer(w.hash);
    this.canonical.put(numberKey(w.number), h);
    w.txHashes.forEach((txh, i) => {
      const loc = Buffer.allocUnsafe(36);
      loc.set(w.hash, 0);
      loc.writeUInt32BE(i, 32);
      this.txIndex.put(asBuffer(txh), loc);
    });
    const empty = Buffer.alloc(0);
    const tagA = Buffer.from("a");
    const tagS = Buffer.from("s");
    for (const c of w.accountChanges) {
      const a = asBuffer(c.hashedAddress);
      this.accountHistory.put(accountHistoryKey(c.hashedAddress, w.number), c.before === undefined ? empty : asBuffer(c.before));
      this.changeSets.put(changeSetKey(w.number, Buffer.concat([tagA, a])), empty);
      if (c.after === undefined) this.hashedAccounts.remove(a);
      else this.hashedAccounts.put(a, asBuffer(c.after));
    }
    for (const c of w.storageChanges) {
      const k = storageKey(c.hashedAddress, c.hashedSlot);
      this.storageHistory.put(storageHistoryKey(c.hashedAddress, c.hashedSlot, w.number), asBuffer(c.before));
      this.changeSets.put(changeSetKey(w.number, Buffer.concat([tagS, k])), empty);
      if (c.after.length === 0) this.hashedStorage.remove(k);
      else this.hashedStorage.put(k, asBuffer(c.after));
    }
    this.writeTries(w.tries);
    this.meta.put(MetaKey.stateRoot, asBuffer(w.stateRoot));
    const t0 = performance.now();
    logIndexWriteBytesTotal.inc(indexBlockLogs(this.logIndex, w.number, w.receipts));
    logIndexWriteSeconds.observe((performance.now() - t0) / 1000);
  }

  /** Writes a state's trie changes: stored nodes put at their paths, vacated ones removed, wiped storage tries dropped. */
  private writeTries(tries: StateTries): void {
    this.writeOverlay(this.accountTrie, tries.account, undefined);
    for (const [hashed, overlay] of tries.storage) this.writeOverlay(this.storageTrie, overlay, Buffer.from(hashed, "hex"));
  }

  private writeOverlay(db: Bin, overlay: TrieOverlay, prefix: Buffer | undefined): void {
    let puts = 0;
    let deletes = 0;
    if (overlay.wiped && prefix !== undefined) {
      const all = subtreeRange([], prefix);
      const keys = [...db.getKeys({ start: all.start, end: all.end })].map((k) => Buffer.from(k));
      for (const key of keys) db.remove(key);
      deletes += keys.length;
    }
    for (const [p, e] of overlay.entries) {
      const key = pathKey(pathOfString(p), prefix);
      if (e !== null && e.rlp !== undefined) {
        // Nodes written by an update carry their kind; a record needs it.
        db.put(key, e.kind === "extension" ? extensionRecord(e.rlp) : branchRecord(e.storedMask, e.rlp));
        puts++;
      } else if (overlay.baseStored.has(p)) {
        db.remove(key);
        deletes++;
      }
    }
    if (puts > 0) trieWritesTotal.inc({ op: "put" }, puts);
    if (deletes > 0) trieWritesTotal.inc({ op: "delete" }, deletes);
  }

  /** Writes forkchoice pointers. */
  private writePointers(p: { head?: Uint8Array; safe?: Uint8Array; finalized?: Uint8Array }): void {
    if (p.head !== undefined) this.meta.put(MetaKey.head, asBuffer(p.head));
    if (p.safe !== undefined) this.meta.put(MetaKey.safe, asBuffer(p.safe));
    if (p.finalized !== undefined) this.meta.put(MetaKey.finalized, asBuffer(p.finalized));
  }

  /** Updates forkchoice pointers atomically. */
  setPointers(p: { head?: Uint8Array; safe?: Uint8Array; finalized?: Uint8Array }): void {
    this.root.transactionSync(() => this.writePointers(p));
  }

  /**
   * Removes the canonical block `number` (the current head) from the canonical chain: restores
   * the flat state from its history, writes the tries of the parent's state (`revert`, computed
   * by storage/stateRevert.ts and checked against the parent's state root), drops the block's
   * indexes and history entries. Block data (header, body, receipts) stays, so the block can be
   * re-applied later.
   */
  unwindHead(number: bigint, txHashes: Uint8Array[], newHead: Uint8Array, revert: { tries: StateTries; stateRoot: Uint8Array }): void {
    this.root.transactionSync(() => {
      const start = numberKey(number);
      for (const key of this.changeSets.getKeys({ start, end: prefixEnd(start) })) {
        const rest = Buffer.from(key.subarray(9));
        if (key[8] === 0x61) {
          const hk = accountHistoryKey(rest, number);
          const before = this.accountHistory.get(hk);
          if (before === undefined || before.length === 0) this.hashedAccounts.remove(rest);
          else this.hashedAccounts.put(rest, before);
          this.accountHistory.remove(hk);
        } else {
          const hk = storageHistoryKey(rest.subarray(0, HASHED_KEY_BYTES), rest.subarray(HASHED_KEY_BYTES), number);
          const before = this.storageHistory.get(hk);
          if (before === undefined || before.length === 0) this.hashedStorage.remove(rest);
          else this.hashedStorage.put(rest, before);
          this.storageHistory.remove(hk);
        }
        this.changeSets.remove(Buffer.from(key));
      }
      this.writeTries(revert.tries);
      this.meta.put(MetaKey.stateRoot, asBuffer(revert.stateRoot));
      const hash = this.canonical.get(start);
      const raw = hash === undefined ? undefined : this.receipts.get(hash);
      if (raw !== undefined) unindexBlockLogs(this.logIndex, number, decodeReceiptLogs(raw));
      this.canonical.remove(start);
      for (const t of txHashes) this.txIndex.remove(asBuffer(t));
      this.meta.put(MetaKey.head, asBuffer(newHead));
    });
    cacheCommittedTries(revert.tries);
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
        for (const key of this.changeSets.getKeys({ start, end: prefixEnd(start) })) {
          const rest = key.subarray(9);
          if (key[8] === 0x61) this.accountHistory.remove(accountHistoryKey(rest, n));
          else this.storageHistory.remove(storageHistoryKey(rest.subarray(0, HASHED_KEY_BYTES), rest.subarray(HASHED_KEY_BYTES), n));
          this.changeSets.remove(Buffer.from(key));
        }
      }
      this.meta.put(MetaKey.historyFloor, floor.toString());
    });
  }

  /**
   * Drops the log index entries of blocks below `floor` and moves {@link MetaKey.logIndexFrom}
   * up to it. basalt keeps every block's receipts today, so nothing calls it yet: whatever comes
   * to prune receipts calls it with the same floor in the same step. Walks the whole index.
   */
  pruneLogIndex(floor: bigint): void {
    if (floor <= 0n) return;
    this.root.transactionSync(() => {
      pruneLogIndexBelow(this.logIndex, Number(floor));
      if (this.logIndexFrom() < floor) this.meta.put(MetaKey.logIndexFrom, floor.toString());
    });
  }

  /** Entries and bytes (pages × page size) of the log index sub-database. */
  logIndexStats(): { entries: number; bytes: number } {
    const s = this.logIndex.getStats() as { entryCount?: number; pageSize?: number; treeBranchPageCount?: number; treeLeafPageCount?: number; overflowPages?: number };
    const pages = (s.treeBranchPageCount ?? 0) + (s.treeLeafPageCount ?? 0) + (s.overflowPages ?? 0);
    return { entries: s.entryCount ?? 0, bytes: pages * (s.pageSize ?? 4096) };
  }

  /** The lowest block whose state history is kept (0 for an archive node, which keeps all). */
  historyFloor(): bigint {
    return BigInt((this.getMeta<number | string>(MetaKey.historyFloor) ?? 0).toString());
  }
}
