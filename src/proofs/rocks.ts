/**
 * The part of `rocksdb-native` (3.18.1, pinned exactly in package.json) that the proofs store
 * uses, typed, plus {@link AtomicBatch}: one RocksDB write batch spanning several column families.
 *
 * Facts of the package that the store relies on (read from its lib/*.js and binding.cc):
 * - keys and values are raw bytes when no encoding is given (reads return Buffers); a stored
 *   empty value reads back as an empty Buffer, a missing key as `null`;
 * - an iterator takes `gt`/`gte`/`lt`/`lte` bounds, where an empty bound means "unbounded", plus
 *   `reverse` and `limit`; each iterator reads from one implicit RocksDB snapshot;
 * - every read batch, write batch and iterator holds a reference on the database until it is
 *   destroyed (a write batch by `autoDestroy` or `destroy()`, an iterator when iterated to its
 *   end or left with `break`/`return`), and `close()` waits for all of them: a batch that is
 *   neither flushed with `autoDestroy` nor destroyed makes `close()` hang;
 * - `write()` on a column-family session returns a batch whose operations each name a column
 *   family, taken from the session the batch belongs to at the moment the operation is added;
 *   the native side turns the whole list into ONE `rocksdb::WriteBatch` (`DB::Write`), which is
 *   atomic across column families. The public API gives no way to name another column family per
 *   operation, so {@link AtomicBatch} points the batch at the session of each operation's column
 *   family while adding it (the batch's private `_db` field; every session shares one database
 *   state, so the batch's references and flush are unchanged). The constructor checks the field
 *   is where 3.18.1 keeps it, and test/unit/proofs/store.test.ts checks a two-family batch lands
 *   whole; a version bump must pass both;
 * - writes use RocksDB's default WriteOptions: written to the write-ahead log, not fsynced. A
 *   killed process loses nothing that was acknowledged; a power loss can lose the last batches,
 *   never part of one (recovery is point-in-time);
 * - a second read-write open of the same directory in the same process (any thread) fails on
 *   RocksDB's LOCK file; a read-only open works and sees the data as of its own open only.
 */
import { createRequire } from "node:module";

/** Key bounds and options of an iterator (bounds are raw keys). */
interface RocksRange {
  gt?: Uint8Array;
  gte?: Uint8Array;
  lt?: Uint8Array;
  lte?: Uint8Array;
  reverse?: boolean;
  limit?: number;
  /** false: keys only (values come back null) */
  values?: boolean;
}

/** One entry an iterator yields. */
interface RocksEntry {
  key: Buffer;
  value: Buffer;
}

/** A write batch of `rocksdb-native` (the methods the store uses). */
interface RocksWriteBatch {
  tryPut(key: Uint8Array, value: Uint8Array): void;
  tryDelete(key: Uint8Array): void;
  flush(): Promise<void>;
  destroy(): void;
}

/** A read batch of `rocksdb-native`: gets added, then read in one native call. */
interface RocksReadBatch {
  get(key: Uint8Array): Promise<Buffer | null>;
  tryFlush(): void;
}

/** A session of `rocksdb-native`: the database seen through one column family. */
export interface RocksSession {
  ready(): Promise<void>;
  close(): Promise<void>;
  columnFamily(name: string): RocksSession;
  /** A session reading through one RocksDB snapshot (its column-family sessions share it); close it to release the snapshot. */
  snapshot(): RocksSession;
  /** Flushes the memtable of the session's column family to an SST file. */
  flush(): Promise<void>;
  write(opts?: { autoDestroy?: boolean; capacity?: number }): RocksWriteBatch;
  read(opts?: { autoDestroy?: boolean; capacity?: number }): RocksReadBatch;
  get(key: Uint8Array): Promise<Buffer | null>;
  iterator(range: RocksRange): AsyncIterable<RocksEntry>;
  approximateSize(start: Uint8Array, end: Uint8Array, opts?: { includeMemtables?: boolean }): Promise<number>;
  getProperty(name: string): Promise<string>;
}

/** Options of the `rocksdb-native` constructor that the store passes. */
interface RocksOpenOptions {
  columnFamilies: string[];
  readOnly?: boolean;
  createIfMissing?: boolean;
  /** false: refuse to open when a column family asked for does not exist ("Column family not found: name") */
  createMissingColumnFamilies?: boolean;
}

type RocksConstructor = new (path: string, opts: RocksOpenOptions) => RocksSession;

let rocksConstructor: RocksConstructor | undefined;

/** A root session of the database at `dir` (not yet opened: await `ready()`). */
export function rocksOpen(dir: string, opts: RocksOpenOptions): RocksSession {
  rocksConstructor ??= createRequire(import.meta.url)("rocksdb-native") as RocksConstructor;
  return new rocksConstructor(dir, opts);
}

/** What {@link AtomicBatch} reads of a batch's private fields (rocksdb-native 3.18.1). */
interface BatchInternals {
  _db: RocksSession;
}

/**
 * One atomic RocksDB write across column families: every `put`/`delete` names the column family
 * session it goes to, and {@link commit} writes them all in one `rocksdb::WriteBatch` (all or
 * nothing, also across a kill). A batch is used once: {@link commit} or {@link discard} it.
 */
export class AtomicBatch {
  readonly #home: RocksSession;
  readonly #batch: RocksWriteBatch & BatchInternals;
  #done = false;
  #size = 0;

  /** A batch of the database that `home` (any of its sessions) belongs to. */
  constructor(home: RocksSession) {
    const batch = home.write({ autoDestroy: true }) as RocksWriteBatch & Partial<BatchInternals>;
    if (batch._db !== home) {
      batch.destroy();
      throw new Error("rocksdb-native: a write batch no longer keeps its session in `_db`; AtomicBatch needs porting to this version");
    }
    this.#home = home;
    this.#batch = batch as RocksWriteBatch & BatchInternals;
  }

  /** Operations added so far. */
  get size(): number {
    return this.#size;
  }

  /** Sets `key` to `value` in the column family of `cf`. */
  put(cf: RocksSession, key: Uint8Array, value: Uint8Array): void {
    this.#on(cf, () => this.#batch.tryPut(key, value));
  }

  /** Deletes `key` in the column family of `cf`. */
  delete(cf: RocksSession, key: Uint8Array): void {
    this.#on(cf, () => this.#batch.tryDelete(key));
  }

  /** Writes every operation at once; the batch is freed either way. */
  async commit(): Promise<void> {
    this.#check();
    this.#done = true;
    await this.#batch.flush();
  }

  /** Frees the batch without writing anything (when building it failed). */
  discard(): void {
    if (this.#done) return;
    this.#done = true;
    this.#batch.destroy();
  }

  #on(cf: RocksSession, add: () => void): void {
    this.#check();
    this.#batch._db = cf;
    try {
      add();
    } finally {
      this.#batch._db = this.#home;
    }
    this.#size++;
  }

  #check(): void {
    if (this.#done) throw new Error("AtomicBatch used after commit or discard");
  }
}

/** The first entry of `range` (with `limit: 1`), or undefined; the iterator is closed either way. */
export async function firstEntry(cf: RocksSession, range: RocksRange): Promise<RocksEntry | undefined> {
  for await (const entry of cf.iterator({ ...range, limit: 1 })) return entry;
  return undefined;
}

/** The values of `keys` in `cf` (null where missing), read in one batch: one job on the thread pool. */
export async function getMany(cf: RocksSession, keys: Uint8Array[]): Promise<(Buffer | null)[]> {
  if (keys.length === 0) return [];
  const batch = cf.read({ autoDestroy: true, capacity: keys.length });
  const values = keys.map((k) => batch.get(k));
  batch.tryFlush();
  return Promise.all(values);
}

/** Every entry of `range`, in key order (reverse order with `reverse`). */
export async function allEntries(cf: RocksSession, range: RocksRange): Promise<RocksEntry[]> {
  const out: RocksEntry[] = [];
  for await (const entry of cf.iterator(range)) out.push(entry);
  return out;
}
