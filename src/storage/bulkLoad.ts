/**
 * Bulk load of a whole state into an empty chain store, from hashed leaves in key order: the flat
 * tables and the path-keyed tries written by appending (LMDB's MDB_APPEND: full pages, no
 * B-tree search per key), the tries built by the streaming builder (trie/builder.ts). What a
 * synthetic state (bench/stateScale.ts), a genesis built from a stream and the migration of an
 * older datadir all take; snapshot import checks the result with {@link verifyState}.
 *
 * Two phases, each resumable after a kill (every transaction is atomic and carries the progress
 * marker `meta.bulkLoad`):
 * 1. per account, in hashed-address order: its slots into `hashedStorage`, its storage trie into
 *    `storageTrie`, then the account (with the storage root just built) into `hashedAccounts`.
 *    A restart resumes after the last account committed.
 * 2. the account trie, rebuilt from `hashedAccounts` into `accountTrie` (cleared first: a restart
 *    runs this phase again, ~1 minute per 30 M accounts), its root checked against the expected one.
 */
import { RLP } from "@ethereumjs/rlp";
import { KECCAK256_NULL, KECCAK256_RLP, bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { BULK_LOAD_TXN_WRITES } from "./constants.js";
import { fullAccountRlp } from "./accountCodec.js";
import { StorageError, StorageErrorCode } from "./errors.js";
import { HASHED_KEY_BYTES, prefixEnd, storageKey } from "./keys.js";
import { MetaKey, type ChainStore } from "./store.js";
import { TrieBuilder } from "./trie/builder.js";
import { pathKey, subtreeRange } from "./trie/path.js";
import { TrieComparator, type TrieComparison } from "./trie/verify.js";
import { asBuffer, to0x, toHex } from "../util/bytes.js";

const EMPTY = new Uint8Array(0);
/** Put flags: append at the end of the table (keys arrive in ascending order). */
const APPEND = { append: true } as const;

/** One account of a bulk load, by hashed address (ascending across the stream). */
export interface BulkAccount {
  hashedAddress: Uint8Array;
  nonce: bigint;
  balance: bigint;
  /** keccak256 of the account's code (absent: no code). The code itself goes in with {@link BulkAccount.code}. */
  codeHash?: Uint8Array;
  /** The code, written to the code table under `codeHash` (a code shared by many accounts needs writing once). */
  code?: Uint8Array;
  /** The account's slots in ascending hashed-slot order, values with leading zeros stripped (non-empty). */
  storage?: Iterable<{ hashedSlot: Uint8Array; value: Uint8Array }>;
}

/** Progress of a bulk load (for logs, progress bars and ETAs). */
export interface BulkLoadProgress {
  phase: 1 | 2;
  accounts: number;
  slots: number;
  /** The last hashed address written (phase 1) or read (phase 2). */
  last: Uint8Array;
}

/** Options of {@link bulkLoadState}. */
interface BulkLoadOptions {
  /** The state root the load must give; a different one fails (nothing marks the state valid). */
  expectedRoot?: Uint8Array;
  /** Called after each committed transaction. */
  onProgress?: (p: BulkLoadProgress) => void;
  /** Writes per transaction (default {@link BULK_LOAD_TXN_WRITES}; tests use small ones to get many). */
  txnWrites?: number;
}

/** What a bulk load wrote. */
interface BulkLoadResult {
  stateRoot: Uint8Array;
  accounts: number;
  slots: number;
  /** Whether it continued an interrupted load. */
  resumed: boolean;
}

/** The `meta.bulkLoad` marker: where an interrupted load resumes. */
interface Marker {
  phase: 1 | 2;
  /** Hex of the last hashed address committed in phase 1. */
  last: string;
  accounts: number;
  slots: number;
}

function compare(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(asBuffer(a), asBuffer(b));
}

/** The slim RLP (accountCodec.ts) of an account's fields. */
function slim(nonce: bigint, balance: bigint, storageRoot: Uint8Array, codeHash: Uint8Array | undefined): Uint8Array {
  const root = compare(storageRoot, KECCAK256_RLP) === 0 ? EMPTY : storageRoot;
  const code = codeHash === undefined || compare(codeHash, KECCAK256_NULL) === 0 ? EMPTY : codeHash;
  return RLP.encode([bigIntToUnpaddedBytes(nonce), bigIntToUnpaddedBytes(balance), root, code]);
}

/**
 * Loads `accounts` (ascending hashed addresses, each with its slots ascending) into the store's
 * empty state, or resumes an interrupted load of the same stream (the stream is read again from
 * its start; accounts up to the marker are skipped). Sets the store's state root.
 * @throws StorageError `STORAGE_BULK_LOAD_REFUSED` on a store that holds a state or a stream out
 *   of order; `STORAGE_BULK_LOAD_ROOT` when the root is not `expectedRoot`.
 */
export function bulkLoadState(store: ChainStore, accounts: Iterable<BulkAccount>, opts: BulkLoadOptions = {}): BulkLoadResult {
  const marker = store.getMeta<Marker>(MetaKey.bulkLoad);
  if (marker === undefined && (store.getStateRoot() !== undefined || !isEmpty(store))) {
    throw new StorageError({ code: StorageErrorCode.BULK_LOAD_REFUSED }, `the store at ${store.path} already holds a state: a bulk load needs an empty one`);
  }
  const resumed = marker !== undefined;
  let count = marker?.accounts ?? 0;
  let slotCount = marker?.slots ?? 0;
  const after = marker === undefined ? undefined : Buffer.from(marker.last, "hex");
  if (marker === undefined || marker.phase === 1) {
    const r = loadAccounts(store, accounts, after, count, slotCount, opts);
    count = r.accounts;
    slotCount = r.slots;
  }
  const stateRoot = buildAccountTrie(store, count, slotCount, opts);
  if (opts.expectedRoot !== undefined && compare(stateRoot, opts.expectedRoot) !== 0) {
    throw new StorageError({ code: StorageErrorCode.BULK_LOAD_ROOT }, `the loaded state has root ${to0x(stateRoot)}, expected ${to0x(opts.expectedRoot)}: the source is not that state`);
  }
  store.root.transactionSync(() => {
    store.meta.put(MetaKey.stateRoot, asBuffer(stateRoot));
    store.meta.remove(MetaKey.bulkLoad);
  });
  return { stateRoot, accounts: count, slots: slotCount, resumed };
}

function isEmpty(store: ChainStore): boolean {
  for (const db of [store.hashedAccounts, store.hashedStorage, store.accountTrie, store.storageTrie]) {
    for (const _ of db.getKeys({ limit: 1 })) return false;
  }
  return true;
}

/**
 * Phase 1: slots, storage tries and accounts, committed every `txnWrites` writes — within an
 * account too, so an account of tens of millions of slots is many transactions, not one. The
 * marker names the last account completed; a resume first removes what an account cut short left
 * after it (its slots and storage trie records), then loads that account again.
 */
function loadAccounts(store: ChainStore, accounts: Iterable<BulkAccount>, after: Buffer | undefined, count: number, slotCount: number, opts: BulkLoadOptions): { accounts: number; slots: number } {
  const txnWrites = opts.txnWrites ?? BULK_LOAD_TXN_WRITES;
  if (after !== undefined) {
    const from = prefixEnd(after);
    clearFrom(store, store.hashedStorage, from, txnWrites);
    clearFrom(store, store.storageTrie, from, txnWrites);
    clearFrom(store, store.hashedAccounts, from, txnWrites);
  }
  const pending: [ChainStore["code"], Buffer, Buffer][] = [];
  let marker: Marker | undefined;
  const flush = (): void => {
    if (pending.length === 0 && marker === undefined) return;
    store.root.transactionSync(() => {
      // Code is keyed by hash, out of order: the only table not appended to.
      for (const [db, k, v] of pending) {
        if (db === store.code) db.putSync(k, v);
        else db.putSync(k, v, APPEND);
      }
      if (marker !== undefined) store.meta.put(MetaKey.bulkLoad, marker);
    });
    pending.length = 0;
    if (marker !== undefined) opts.onProgress?.({ phase: 1, accounts: marker.accounts, slots: marker.slots, last: Buffer.from(marker.last, "hex") });
    marker = undefined;
  };
  const put = (db: ChainStore["code"], k: Buffer, v: Uint8Array): void => {
    pending.push([db, k, Buffer.from(v)]);
    if (pending.length >= txnWrites) flush();
  };
  let prev: Uint8Array | undefined = after;
  const written = new Set<string>();
  for (const a of accounts) {
    if (after !== undefined && compare(a.hashedAddress, after) <= 0) continue;
    if (prev !== undefined && compare(a.hashedAddress, prev) <= 0) {
      throw new StorageError({ code: StorageErrorCode.BULK_LOAD_REFUSED }, `bulk load: account ${to0x(a.hashedAddress)} comes after ${to0x(prev)}: hashed addresses must ascend`);
    }
    prev = a.hashedAddress;
    const prefix = Buffer.from(a.hashedAddress);
    let storageRoot = KECCAK256_RLP;
    let slots = 0;
    if (a.storage !== undefined) {
      const builder = new TrieBuilder((path, record) => put(store.storageTrie, pathKey(path, prefix), record));
      for (const { hashedSlot, value } of a.storage) {
        builder.add(hashedSlot, RLP.encode(value));
        put(store.hashedStorage, storageKey(a.hashedAddress, hashedSlot), value);
        slots++;
      }
      storageRoot = builder.finish();
    }
    if (a.code !== undefined && a.codeHash !== undefined) {
      const k = toHex(a.codeHash);
      if (!written.has(k)) {
        put(store.code, Buffer.from(a.codeHash), a.code);
        written.add(k);
      }
    }
    put(store.hashedAccounts, prefix, slim(a.nonce, a.balance, storageRoot, a.codeHash));
    count++;
    slotCount += slots;
    marker = { phase: 1, last: prefix.toString("hex"), accounts: count, slots: slotCount };
  }
  flush();
  store.root.transactionSync(() => store.meta.put(MetaKey.bulkLoad, { phase: 2, last: "", accounts: count, slots: slotCount } satisfies Marker));
  return { accounts: count, slots: slotCount };
}

/** Removes every entry of `db` (from `start` on, when given), in transactions of `txnWrites`. */
function clearFrom(store: ChainStore, db: ChainStore["code"], start: Buffer | undefined, txnWrites: number): void {
  for (;;) {
    const keys = [...db.getKeys({ ...(start === undefined ? {} : { start }), limit: txnWrites })].map((k) => Buffer.from(k));
    if (keys.length === 0) return;
    store.root.transactionSync(() => {
      for (const k of keys) db.remove(k);
    });
  }
}

/** Phase 2: the account trie from the flat accounts; returns the state root. */
function buildAccountTrie(store: ChainStore, count: number, slotCount: number, opts: BulkLoadOptions): Uint8Array {
  const txnWrites = opts.txnWrites ?? BULK_LOAD_TXN_WRITES;
  clearFrom(store, store.accountTrie, undefined, txnWrites);
  const pending: [Buffer, Buffer][] = [];
  const builder = new TrieBuilder((path, record) => pending.push([pathKey(path), record]));
  const flush = (): void => {
    if (pending.length === 0) return;
    store.root.transactionSync(() => {
      for (const [k, v] of pending) store.accountTrie.putSync(k, v, APPEND);
    });
    pending.length = 0;
  };
  let seen = 0;
  for (const { key, value } of store.hashedAccounts.getRange({})) {
    builder.add(key, fullAccountRlp(value));
    seen++;
    if (pending.length >= txnWrites) {
      flush();
      opts.onProgress?.({ phase: 2, accounts: seen, slots: slotCount, last: key });
    }
  }
  const root = builder.finish();
  flush();
  opts.onProgress?.({ phase: 2, accounts: seen, slots: slotCount, last: new Uint8Array(0) });
  void count;
  return root;
}

/** Progress of {@link buildTriesFromFlat}: accounts and slots read so far. */
interface TrieBuildProgress {
  accounts: number;
  slots: number;
}

/** What {@link walkFlatState} hands on: the tries' nodes as they are built, and what does not fit. */
interface FlatStateVisitor {
  /** Where the storage trie of the account `hashedAddress` goes (records at that account's paths). */
  storageSink(hashedAddress: Buffer): (path: Uint8Array, record: Buffer) => void;
  /** The account's storage trie is complete: the root its slots give and the one its account holds. */
  storageDone(hashedAddress: Buffer, root: Uint8Array, held: Uint8Array): void;
  /** A slot under no account. */
  orphanSlot(key: Buffer): void;
  /** The account trie's nodes. */
  accountNode(path: Uint8Array, record: Buffer): void;
  /** After each account, with the counts so far. */
  afterAccount?(accounts: number, slots: number): void;
}

/**
 * One pass over the flat state (`hashedAccounts` with `hashedStorage` beside it, both in key
 * order): every storage trie and the account trie rebuilt by the streaming builder, their nodes
 * handed to `v`. Memory O(depth). Returns the state root and the counts.
 */
function walkFlatState(store: ChainStore, v: FlatStateVisitor): { stateRoot: Uint8Array; accounts: number; slots: number } {
  const accountTrie = new TrieBuilder(v.accountNode);
  const slotIt = store.hashedStorage.getRange({})[Symbol.iterator]();
  let slot = slotIt.next();
  let accounts = 0;
  let slots = 0;
  for (const { key, value } of store.hashedAccounts.getRange({})) {
    while (slot.done !== true && compare(slot.value.key.subarray(0, HASHED_KEY_BYTES), key) < 0) {
      v.orphanSlot(slot.value.key);
      slot = slotIt.next();
    }
    const [, , rootField] = RLP.decode(value) as Uint8Array[];
    const storageTrie = new TrieBuilder(v.storageSink(key));
    while (slot.done !== true && compare(slot.value.key.subarray(0, HASHED_KEY_BYTES), key) === 0) {
      storageTrie.add(slot.value.key.subarray(HASHED_KEY_BYTES), RLP.encode(slot.value.value));
      slots++;
      slot = slotIt.next();
    }
    v.storageDone(key, storageTrie.finish(), rootField!.length === 0 ? KECCAK256_RLP : rootField!);
    accountTrie.add(key, fullAccountRlp(value));
    accounts++;
    v.afterAccount?.(accounts, slots);
  }
  while (slot.done !== true) {
    v.orphanSlot(slot.value.key);
    slot = slotIt.next();
  }
  return { stateRoot: accountTrie.finish(), accounts, slots };
}

/**
 * Rebuilds every trie of the store's latest state from its flat tables (`hashedAccounts`,
 * `hashedStorage`) in one pass: the storage tries (each root checked against the storage root its
 * account holds) and the account trie, written by appending in key order; both trie tables are
 * cleared first, so a run stopped half way is simply run again. Memory O(depth).
 * @throws StorageError `STORAGE_BULK_LOAD_ROOT` when an account's slots do not give its storage
 *   root, a slot has no account, or the state root is not `expectedRoot` (when given).
 */
export function buildTriesFromFlat(store: ChainStore, opts: { expectedRoot?: Uint8Array; onProgress?: (p: TrieBuildProgress) => void; txnWrites?: number } = {}): Uint8Array {
  const txnWrites = opts.txnWrites ?? BULK_LOAD_TXN_WRITES;
  clearFrom(store, store.storageTrie, undefined, txnWrites);
  clearFrom(store, store.accountTrie, undefined, txnWrites);
  const pending: [ChainStore["code"], Buffer, Buffer][] = [];
  const flush = (): void => {
    if (pending.length === 0) return;
    store.root.transactionSync(() => {
      for (const [db, k, v] of pending) db.putSync(k, v, APPEND);
    });
    pending.length = 0;
  };
  const { stateRoot, accounts, slots } = walkFlatState(store, {
    storageSink: (prefix) => (path, record) => pending.push([store.storageTrie, pathKey(path, prefix), record]),
    storageDone: (prefix, root, held) => {
      if (compare(root, held) === 0) return;
      throw new StorageError({ code: StorageErrorCode.BULK_LOAD_ROOT }, `account 0x${prefix.toString("hex")}: its slots give storage root ${to0x(root)}, the account holds ${to0x(held)}: the flat state is inconsistent`);
    },
    orphanSlot: (key) => {
      throw new StorageError({ code: StorageErrorCode.BULK_LOAD_ROOT }, `slot 0x${key.toString("hex")} of the flat state belongs to no account: the flat state is inconsistent`);
    },
    accountNode: (path, record) => pending.push([store.accountTrie, pathKey(path), record]),
    afterAccount: (a, n) => {
      if (pending.length < txnWrites) return;
      flush();
      opts.onProgress?.({ accounts: a, slots: n });
    },
  });
  flush();
  opts.onProgress?.({ accounts, slots });
  if (opts.expectedRoot !== undefined && compare(stateRoot, opts.expectedRoot) !== 0) {
    throw new StorageError({ code: StorageErrorCode.BULK_LOAD_ROOT }, `the flat state gives state root ${to0x(stateRoot)}, expected ${to0x(opts.expectedRoot)}: the flat state is not that block's`);
  }
  return stateRoot;
}

/** What {@link verifyState} found. */
interface StateVerification {
  stateRoot: Uint8Array;
  accounts: number;
  slots: number;
  /** Stored trie nodes compared with the rebuild. */
  nodes: number;
  /** Everything that differs: empty when the state is sound. */
  problems: string[];
}

/**
 * Checks the store's whole latest state: rebuilds every storage trie and the account trie from
 * the flat tables, compares each rebuilt node with the stored record at its path (missing, extra,
 * different), checks each account's storage root, that no slot lies outside an account, and that
 * the account trie's root is `expectedRoot`. One pass, memory O(depth) (plus `maxProblems`, the
 * number of node and slot problems listed; a wrong root is always listed, last).
 */
export function verifyState(store: ChainStore, expectedRoot: Uint8Array, opts: { onProgress?: (accounts: number, slots: number) => void; maxProblems?: number } = {}): StateVerification {
  const max = opts.maxProblems ?? 20;
  const problems: string[] = [];
  const problem = (p: string): void => {
    if (problems.length < max) problems.push(p);
  };
  let nodes = 0;
  let storageNodes = 0;
  const report = (c: TrieComparison, what: string): void => {
    nodes += c.matched;
    storageNodes += what === "account trie" ? 0 : c.matched + c.different + c.extra;
    for (const d of c.differences) problem(`${what}: ${d.kind} node at ${toHex(d.key)}`);
  };
  const accountCmp = new TrieComparator(store.accountTrie.getRange({}), { maxDifferences: max });
  let storageCmp: TrieComparator | undefined;
  const { stateRoot, accounts, slots } = walkFlatState(store, {
    storageSink: (key) => {
      const range = subtreeRange([], key);
      storageCmp = new TrieComparator(store.storageTrie.getRange({ start: range.start, end: range.end }), { prefix: key, maxDifferences: max });
      return storageCmp.onNode;
    },
    storageDone: (key, root, held) => {
      report(storageCmp!.finish(), `storage trie of 0x${key.toString("hex")}`);
      if (compare(root, held) !== 0) problem(`account 0x${key.toString("hex")}: its slots give storage root ${to0x(root)}, the account says ${to0x(held)}`);
    },
    orphanSlot: (key) => problem(`slot ${key.toString("hex")} belongs to no account`),
    accountNode: accountCmp.onNode,
    afterAccount: (a, n) => {
      if (a % 100_000 === 0) opts.onProgress?.(a, n);
    },
  });
  report(accountCmp.finish(), "account trie");
  // Storage trie records of no account: the per-account comparisons only look under accounts.
  const stored = (store.storageTrie.getStats() as { entryCount?: number }).entryCount;
  if (stored !== undefined && stored !== storageNodes) problem(`the storage trie table holds ${stored} records, the accounts' storage tries ${storageNodes}: ${stored - storageNodes} belong to no account`);
  // Always reported, however many node problems came before it.
  if (compare(stateRoot, expectedRoot) !== 0) problems.push(`the state's root is ${to0x(stateRoot)}, expected ${to0x(expectedRoot)}`);
  return { stateRoot, accounts, slots, nodes, problems };
}
