/**
 * The historical proofs store: a versioned copy of the state trie (the account trie and every
 * storage trie) at `<datadir>/proofs`, a RocksDB database, so `eth_getProof` can answer for any
 * block of a window `[earliest, latest]` and old versions can be pruned.
 *
 * Column families (key layouts in `./keys.ts`):
 * - `account_trie`, `storage_trie`: node entries. Entry (path P, version v) is the hashed trie
 *   node at P for every block ≥ v up to the next version of P; its value is the node's RLP, and
 *   an empty value is a tombstone (no node at P from v on). Version 0 is the baseline: valid from
 *   the start of the window. A read of (P, N) is the newest version ≤ N.
 * - `change_index`: one row per block in `(earliest, latest]`: the block's hash and every path it
 *   wrote a version of (what unwinding and pruning walk).
 * - `meta`: schema version, chain id, genesis hash, the window (`earliest`, `latest`) and the
 *   resume marker of an unfinished baseline.
 *
 * Invariants every write keeps (test/unit/proofs/store.test.ts audits them):
 * - each version v with earliest < v ≤ latest of a path is listed in change_index[v];
 * - no path has a version in (0, earliest]: what holds at the earliest block is the baseline,
 *   version 0 (a prune moves the version it keeps there), and a baseline is never a tombstone;
 * - no version is above latest.
 *
 * Every change is one atomic RocksDB batch across the column families ({@link AtomicBatch}), the
 * window included, so a process killed at any point leaves a store whose window matches its data.
 * Writes run one at a time (queued); reads never wait for them: RocksDB readers do not block on
 * writers, each read is one iterator (one implicit snapshot), and a read that overlapped a write
 * which removed versions (an unwind or a prune) is done again (see {@link ProofsStore.node}).
 *
 * Recently used paths also have the block ranges of their versions kept in memory
 * (`./versionCache.ts`): a read inside a known range needs no RocksDB read. Ranges come from
 * reads that no write overlapped and from the versions {@link ProofsStore.writeBlock} commits;
 * every other write forgets the paths it touches.
 */
import { rocksdbMissingColumnFamily } from "../util/foreignErrorText.js";
import { existsSync } from "node:fs";
import path from "node:path";
import { PROOFS_VERSION_CACHE_PATHS, PROOFS_VERSION_CACHE_RANGES, PROOFS_WRITE_READ_CONCURRENCY } from "./constants.js";
import { VersionCache } from "./versionCache.js";
import { readNumber } from "../storage/keys.js";
import { bytesEqual, to0x } from "../util/bytes.js";
import { corrupt, invalidInput, ProofsError, ProofsErrorCode, writeFailed } from "./errors.js";
import {
  changeIndexKey,
  decodeBlockRef,
  decodeChangeRow,
  encodeBlockRef,
  encodeChangeRow,
  HASH_BYTES,
  keyVersion,
  nodeKey,
  nodePrefix,
  versionsAtOrBelow,
  type NodeSlot,
  type TrieKind,
} from "./keys.js";
import { AtomicBatch, allEntries, firstEntry, getMany, rocksOpen, type RocksSession } from "./rocks.js";
import type { BlockRef, NodeChange, NodeDelta, NodeEntry, ProofsWindow, TrieRef } from "./types.js";

/**
 * Version of the on-disk layout (keys.ts and the meta records). A store of another version is
 * refused as corrupt rather than misread; bump it with every incompatible change.
 */
const PROOFS_SCHEMA_VERSION = 1;

/** Column family names. */
export const PROOFS_COLUMN_FAMILIES = {
  account: "account_trie",
  storage: "storage_trie",
  changes: "change_index",
  meta: "meta",
} as const;


/** Keys of the `meta` column family. */
const META = {
  /** uint32 big-endian: {@link PROOFS_SCHEMA_VERSION} */
  schema: Buffer.from("schema"),
  /** 32 bytes big-endian */
  chainId: Buffer.from("chain_id"),
  /** 32 bytes */
  genesis: Buffer.from("genesis"),
  /** block record (keys.ts) */
  earliest: Buffer.from("earliest"),
  /** block record (keys.ts) */
  latest: Buffer.from("latest"),
  /** opaque bytes of the baseline's writer */
  baselineProgress: Buffer.from("baseline_progress"),
} as const;

/** Options of {@link ProofsStore.open}. */
export interface ProofsStoreOptions {
  /** chain the store belongs to; a store of another chain is refused */
  chainId: bigint;
  /** genesis hash (32 bytes) of that chain; a store of another genesis is refused */
  genesisHash: Uint8Array;
  /**
   * open without writing (no store is created; writes throw PROOFS_READ_ONLY). Works beside a
   * read-write open of the same directory, in the same process too, but sees the data as of its
   * own open only.
   */
  readOnly?: boolean;
}

/** Size estimate of one column family. */
interface ColumnFamilyStats {
  /** RocksDB's estimate of its keys (`rocksdb.estimate-num-keys`) */
  estimatedKeys: number;
  /** bytes of its live SST files plus its memtables */
  bytes: number;
}

/** What {@link ProofsStore.stats} returns. */
interface ProofsStats {
  window: ProofsWindow;
  /** per column family name ({@link PROOFS_COLUMN_FAMILIES}) */
  columnFamilies: Record<string, ColumnFamilyStats>;
}

/** One slot a write touches: its node prefix, trie and the name used in messages. */
interface Slot extends NodeSlot {
  /** the kind and the prefix's hex: one string per slot */
  id: string;
}

/**
 * A versioned copy of the state trie over a window of blocks (module comment). Open with
 * {@link ProofsStore.open}; fill with {@link writeBaseline} + {@link commitBaseline}, extend back
 * with {@link stepBack} and forward with {@link writeBlock}; {@link unwindTo} and {@link pruneTo}
 * shrink the window from either end.
 */
export class ProofsStore {
  /** The store's directory. */
  readonly dir: string;
  /** Whether the store was opened read-only. */
  readonly readOnly: boolean;
  readonly #db: RocksSession;
  readonly #account: RocksSession;
  readonly #storage: RocksSession;
  readonly #changes: RocksSession;
  readonly #meta: RocksSession;
  #earliest: BlockRef | undefined;
  #latest: BlockRef | undefined;
  #progress: Uint8Array | undefined;
  /** Bumped before each batch that removes versions (unwind, prune): reads overlapping it are redone. */
  #generation = 0;
  /** The queue of writes: each starts when the previous one settled. */
  #writing: Promise<unknown> = Promise.resolve();
  /** Bumped after every committed write: a read that saw it change does not fill the version cache. */
  #commits = 0;
  /** Known version ranges of recently used paths (module comment). */
  readonly #versions = new VersionCache(PROOFS_VERSION_CACHE_PATHS, PROOFS_VERSION_CACHE_RANGES);

  private constructor(dir: string, db: RocksSession, readOnly: boolean) {
    this.dir = dir;
    this.readOnly = readOnly;
    this.#db = db;
    this.#account = db.columnFamily(PROOFS_COLUMN_FAMILIES.account);
    this.#storage = db.columnFamily(PROOFS_COLUMN_FAMILIES.storage);
    this.#changes = db.columnFamily(PROOFS_COLUMN_FAMILIES.changes);
    this.#meta = db.columnFamily(PROOFS_COLUMN_FAMILIES.meta);
  }

  /**
   * Opens the store at `dir`, creating it on first open (read-write) with the chain id, genesis
   * hash and schema version. Throws PROOFS_OTHER_CHAIN for a store of another chain or genesis,
   * PROOFS_CORRUPT for unreadable metadata, a missing column family or another schema version,
   * PROOFS_NOT_INITIALIZED for a read-only open where no store exists.
   */
  static async open(dir: string, opts: ProofsStoreOptions): Promise<ProofsStore> {
    checkHash(opts.genesisHash, "genesis hash");
    const readOnly = opts.readOnly ?? false;
    const exists = existsSync(path.join(dir, "CURRENT"));
    if (readOnly && !exists) {
      throw new ProofsError({ code: ProofsErrorCode.NOT_INITIALIZED }, `no proofs store at ${dir} to open read-only: expected one created by a read-write open`);
    }
    // An existing store must have every column family: RocksDB would otherwise create a missing one empty.
    const db = rocksOpen(dir, { columnFamilies: Object.values(PROOFS_COLUMN_FAMILIES), readOnly, createMissingColumnFamilies: !exists });
    try {
      await db.ready();
    } catch (e) {
      await db.close().catch(() => undefined);
      // rocksdb-native names RocksDB's status in `code`: InvalidArgument (EINVAL) on an existing
      // store opened with valid options is a missing column family (its message names it);
      // IOError (EIO) on a read-write open is its LOCK file held by another process.
      const { code, message } = e as NodeJS.ErrnoException;
      if (code === "EINVAL" && exists) {
        const missing = rocksdbMissingColumnFamily(message) ?? `(unnamed: RocksDB says ${message})`;
        throw corrupt(dir, `its column family ${missing} is missing, expected ${Object.values(PROOFS_COLUMN_FAMILIES).join(", ")}`);
      }
      if (code === "EIO" && exists && !readOnly) {
        throw new ProofsError({ code: ProofsErrorCode.IN_USE, dir, reason: message }, `the proofs store at ${dir} cannot be opened read-write: it is locked by another process (${message})`);
      }
      throw new Error(`cannot open the proofs store at ${dir}: ${(e as Error).message}`, { cause: e });
    }
    const store = new ProofsStore(dir, db, readOnly);
    try {
      await store.#load(opts);
    } catch (e) {
      await db.close();
      throw e;
    }
    return store;
  }

  /** Reads (or, on a new store, writes) the metadata and the window. */
  async #load(opts: ProofsStoreOptions): Promise<void> {
    const [schema, chainId, genesis, earliest, latest, progress] = await Promise.all(
      [META.schema, META.chainId, META.genesis, META.earliest, META.latest, META.baselineProgress].map((k) => this.#meta.get(k)),
    );
    if (!schema && !chainId && !genesis && !earliest && !latest && !progress) {
      if (this.readOnly) throw new ProofsError({ code: ProofsErrorCode.NOT_INITIALIZED }, `proofs store ${this.dir} has no metadata yet: expected one a read-write open created`);
      await this.#commit((b) => {
        const version = Buffer.alloc(4);
        version.writeUInt32BE(PROOFS_SCHEMA_VERSION);
        b.put(this.#meta, META.schema, version);
        b.put(this.#meta, META.chainId, uint256(opts.chainId));
        b.put(this.#meta, META.genesis, opts.genesisHash);
      });
      return;
    }
    if (!schema || schema.length !== 4) throw corrupt(this.dir, `the schema version record is ${schema ? `${schema.length} bytes, expected 4` : "missing"}`);
    const version = schema.readUInt32BE();
    if (version !== PROOFS_SCHEMA_VERSION) throw corrupt(this.dir, `schema version ${version}, this basalt reads version ${PROOFS_SCHEMA_VERSION}`);
    if (!chainId || chainId.length !== 32) throw corrupt(this.dir, `the chain id record is ${chainId ? `${chainId.length} bytes, expected 32` : "missing"}`);
    if (!genesis || genesis.length !== HASH_BYTES) throw corrupt(this.dir, `the genesis hash record is ${genesis ? `${genesis.length} bytes, expected ${HASH_BYTES}` : "missing"}`);
    const storeChainId = BigInt(to0x(chainId));
    if (storeChainId !== opts.chainId || !bytesEqual(genesis, opts.genesisHash)) {
      throw new ProofsError(
        { code: ProofsErrorCode.OTHER_CHAIN, storeChainId: storeChainId.toString(), chainId: opts.chainId.toString(), storeGenesis: to0x(genesis), genesis: to0x(opts.genesisHash) },
        `proofs store ${this.dir} belongs to chain ${storeChainId} with genesis ${to0x(genesis)}, expected chain ${opts.chainId} with genesis ${to0x(opts.genesisHash)}`,
      );
    }
    if (!earliest !== !latest) throw corrupt(this.dir, `the window has ${earliest ? "an earliest block but no latest" : "a latest block but no earliest"}`);
    if (earliest && latest) {
      const e = decodeBlockRef(earliest);
      const l = decodeBlockRef(latest);
      if (!e || !l) throw corrupt(this.dir, `a window record is ${(e ? latest : earliest).length} bytes, expected ${8 + HASH_BYTES}`);
      if (e.number > l.number) throw corrupt(this.dir, `the window's earliest block ${e.number} is above its latest ${l.number}`);
      this.#earliest = e;
      this.#latest = l;
    }
    this.#progress = progress ? new Uint8Array(progress) : undefined;
  }

  /** Whether the window is set (the baseline is committed). */
  get initialized(): boolean {
    return this.#latest !== undefined;
  }

  /** The blocks the store answers for (copies; both absent until the baseline is committed). */
  window(): ProofsWindow {
    return { earliest: copyRef(this.#earliest), latest: copyRef(this.#latest) };
  }

  /** The resume marker of a baseline being written (the last {@link writeBaseline}'s), if any. */
  baselineProgress(): Uint8Array | undefined {
    return this.#progress && new Uint8Array(this.#progress);
  }

  /**
   * The node at nibble path `path` of `trie` at block `block` (its RLP bytes), or undefined when
   * there is none. `block` must be in the window (PROOFS_OUTSIDE_WINDOW otherwise). A read that
   * overlapped an unwind or a prune is done again, so its answer is the one of one window.
   */
  async node(trie: TrieRef, path: Uint8Array, block: bigint): Promise<Uint8Array | undefined> {
    const prefix = nodePrefix(trie, path);
    const id = slotId({ kind: trie.kind, prefix });
    const cf = this.#cf(trie.kind);
    for (;;) {
      const generation = this.#generation;
      const commits = this.#commits;
      this.#checkInWindow(block);
      const known = this.#versions.get(id, block);
      if (known !== undefined) return known.length > 0 ? known : undefined;
      const atLatest = block === this.#latest!.number;
      const entry = await firstEntry(cf, versionsAtOrBelow(prefix, block));
      if (generation !== this.#generation) continue;
      // The version found holds from its block through this one, and on from there at the latest (no versions above it).
      if (commits === this.#commits && !this.readOnly) {
        this.#versions.learn(id, entry === undefined ? 0n : keyVersion(entry.key), atLatest ? undefined : block, entry?.value ?? EMPTY);
      }
      return entry && entry.value.length > 0 ? entry.value : undefined;
    }
  }

  /** Forgets the known version ranges of `slots` (a write that moves or removes their versions). */
  #forget(slots: Iterable<NodeSlot>): void {
    for (const slot of slots) this.#versions.forget(slotId(slot));
  }

  /**
   * Writes baseline nodes (version 0) and the resume marker `progress` in one batch. The baseline
   * is written in as many calls as the caller likes, then closed by {@link commitBaseline}; after
   * a restart {@link baselineProgress} says where to resume. PROOFS_ALREADY_INITIALIZED once the
   * window is set.
   */
  async writeBaseline(entries: NodeEntry[], progress: Uint8Array): Promise<void> {
    await this.#exclusive(async () => {
      this.#requireUninitialized();
      await this.#commit((b) => {
        for (const e of entries) {
          if (e.node.length === 0) throw invalidInput(`baseline node at ${describe(e.trie, e.path)} is empty: a baseline holds nodes, not tombstones`);
          b.put(this.#cf(e.trie.kind), nodeKey(nodePrefix(e.trie, e.path), 0n), e.node);
        }
        b.put(this.#meta, META.baselineProgress, progress);
      });
      this.#progress = new Uint8Array(progress);
    });
  }

  /** Closes the baseline: the window becomes `[head, head]` and the resume marker is dropped. */
  async commitBaseline(head: BlockRef): Promise<void> {
    checkHash(head.hash, "block hash");
    await this.#exclusive(async () => {
      this.#requireUninitialized();
      await this.#commit((b) => {
        b.put(this.#meta, META.earliest, encodeBlockRef(head));
        b.put(this.#meta, META.latest, encodeBlockRef(head));
        b.delete(this.#meta, META.baselineProgress);
      });
      this.#earliest = copyRef(head);
      this.#latest = copyRef(head);
      this.#progress = undefined;
    });
  }

  /**
   * Moves the window's start back over block `block` (= the earliest) to its parent `parent`,
   * from `changes`: every node the block changed, with its value before and after the block. Each
   * `after` must be what the store holds at `block` (PROOFS_CORRUPT otherwise); the block's nodes
   * become version `block` and the `before` values the baseline. One batch.
   */
  async stepBack(block: bigint, parent: BlockRef, changes: NodeDelta[]): Promise<void> {
    checkHash(parent.hash, "block hash");
    await this.#exclusive(async () => {
      const { earliest } = this.#requireWindow();
      if (block !== earliest.number || parent.number !== block - 1n || block === 0n) {
        throw outOfOrder(
          `step back over block ${block} to parent ${parent.number}`,
          earliest.number === 0n ? "none: the window starts at genesis" : `block ${earliest.number} (the window's earliest) to parent ${earliest.number - 1n}`,
          `${earliest.number}:${to0x(earliest.hash)}`,
          `${block}:${to0x(parent.hash)}`,
        );
      }
      const slots = distinctSlots(changes, true);
      const bases = await this.#baselines(slots);
      await this.#commit((b) => {
        slots.forEach(({ slot, item }, i) => {
          const cf = this.#cf(slot.kind);
          const base = bases[i];
          const held = base && base.length > 0 ? base : null;
          if (!sameNode(held, item.after)) {
            throw corrupt(this.dir, `${describe(item.trie, item.path)} at block ${block} holds ${nodeText(held)}, the step back says ${nodeText(item.after)}`);
          }
          // The baseline (version 0) is the path's only version ≤ block (invariants): `after` moves up to version `block`, `before` takes its place.
          b.put(cf, nodeKey(slot.prefix, block), item.after ?? EMPTY);
          if (item.before && item.before.length > 0) b.put(cf, nodeKey(slot.prefix, 0n), item.before);
          else if (base) b.delete(cf, nodeKey(slot.prefix, 0n));
        });
        b.put(this.#changes, changeIndexKey(block), encodeChangeRow(earliest.hash, slots.map((s) => s.slot)));
        b.put(this.#meta, META.earliest, encodeBlockRef(parent));
      });
      this.#forget(slots.map((s) => s.slot));
      this.#earliest = copyRef(parent);
    });
  }

  /**
   * Extends the window to `block`, the child of the latest (`parentHash` = its hash;
   * PROOFS_OUT_OF_ORDER otherwise), with the nodes it wrote (`node` null: removed). One batch.
   */
  async writeBlock(block: BlockRef, parentHash: Uint8Array, changes: NodeChange[]): Promise<void> {
    checkHash(block.hash, "block hash");
    await this.#exclusive(async () => {
      const { latest } = this.#requireWindow();
      if (block.number !== latest.number + 1n || !bytesEqual(parentHash, latest.hash)) {
        throw outOfOrder(
          `block ${block.number} with parent ${to0x(parentHash)}`,
          `block ${latest.number + 1n} with parent ${to0x(latest.hash)} (the window's latest)`,
          `${latest.number + 1n}:${to0x(latest.hash)}`,
          `${block.number}:${to0x(parentHash)}`,
        );
      }
      const slots = distinctSlots(changes, false);
      await this.#commit((b) => {
        for (const { slot, item } of slots) b.put(this.#cf(slot.kind), nodeKey(slot.prefix, block.number), item.node ?? EMPTY);
        b.put(this.#changes, changeIndexKey(block.number), encodeChangeRow(block.hash, slots.map((s) => s.slot)));
        b.put(this.#meta, META.latest, encodeBlockRef(block));
      });
      for (const { slot, item } of slots) this.#versions.supersede(slot.id, block.number, item.node ?? EMPTY);
      this.#latest = copyRef(block);
    });
  }

  /**
   * Shrinks the window's end to `target`: removes every version of the blocks above it, newest
   * block first, one batch per block (the latest moves down with each). Reads at the blocks kept
   * are then exactly what they were before the removed blocks were written.
   * PROOFS_UNWIND_BEYOND_EARLIEST below the earliest, PROOFS_BLOCK_MISMATCH when `target.hash`
   * is not the store's block of that number.
   */
  async unwindTo(target: BlockRef): Promise<void> {
    await this.#exclusive(async () => {
      const { earliest, latest } = this.#requireWindow();
      if (target.number < earliest.number) {
        throw new ProofsError(
          { code: ProofsErrorCode.UNWIND_BEYOND_EARLIEST, target: target.number.toString(), earliest: earliest.number.toString() },
          `cannot unwind the proofs window to block ${target.number}: its earliest block is ${earliest.number}, expected a target from ${earliest.number} to ${latest.number}`,
        );
      }
      if (target.number > latest.number) {
        throw outOfOrder(`unwind to block ${target.number}`, `a target at or below the window's latest ${latest.number}`, `${latest.number}:${to0x(latest.hash)}`, `${target.number}:${to0x(target.hash)}`);
      }
      let row = target.number < latest.number ? await this.#changeRow(latest.number) : undefined;
      const targetHash = target.number === latest.number ? latest.hash : await this.#blockHash(target.number);
      if (!bytesEqual(targetHash, target.hash)) throw blockMismatch(target, targetHash);
      for (let n = latest.number; n > target.number; n--) {
        const current = row!;
        if (!bytesEqual(current.hash, this.#latest!.hash)) {
          throw corrupt(this.dir, `the change-index row of block ${n} names hash ${to0x(current.hash)}, the window's latest is ${to0x(this.#latest!.hash)}`);
        }
        const parentNumber = n - 1n;
        row = parentNumber > earliest.number ? await this.#changeRow(parentNumber) : undefined;
        const parent: BlockRef = { number: parentNumber, hash: row ? row.hash : earliest.hash };
        this.#forget(current.slots);
        await this.#removing("latest", parent, (b) => {
          for (const slot of current.slots) b.delete(this.#cf(slot.kind), nodeKey(slot.prefix, n));
          b.delete(this.#changes, changeIndexKey(n));
          b.put(this.#meta, META.latest, encodeBlockRef(parent));
        });
      }
    });
  }

  /**
   * Moves the window's start forward towards `target`: by at most `maxBlocks` blocks, never past
   * `target` or the latest. For each path a pruned block changed, the newest version at or below
   * the new earliest (the survivor) becomes the path's baseline, version 0, and every other
   * version at or below the new earliest is deleted (all of them when the survivor is a
   * tombstone); the pruned change-index rows go. One batch. Reads at every block from the new
   * earliest on are unchanged. Returns the new earliest block number. PROOFS_BLOCK_MISMATCH when
   * the window reaches `target` and its hash is not the store's.
   *
   * The survivor moves to version 0 rather than staying at its own version so that a later
   * {@link stepBack} finds every path's value at the earliest block at version 0: a survivor left at
   * version v would vanish from reads below v once the window stepped back past v.
   */
  async pruneTo(target: BlockRef, maxBlocks: number): Promise<bigint> {
    if (!Number.isSafeInteger(maxBlocks) || maxBlocks < 0) throw invalidInput(`maxBlocks is a whole number ≥ 0, got ${maxBlocks}`);
    return this.#exclusive(async () => {
      const { earliest, latest } = this.#requireWindow();
      let to = earliest.number + BigInt(maxBlocks);
      if (target.number < to) to = target.number;
      if (latest.number < to) to = latest.number;
      if (to <= earliest.number) return earliest.number;
      const rows = await allEntries(this.#changes, { gt: changeIndexKey(earliest.number), lte: changeIndexKey(to) });
      if (BigInt(rows.length) !== to - earliest.number) {
        throw corrupt(this.dir, `change index has ${rows.length} rows for blocks ${earliest.number + 1n}..${to}, expected one per block`);
      }
      const decoded = rows.map((r) => this.#decodeRow(r.value, readNumber(r.key)));
      const newEarliest: BlockRef = { number: to, hash: decoded[decoded.length - 1]!.hash };
      if (to === target.number && !bytesEqual(newEarliest.hash, target.hash)) throw blockMismatch(target, newEarliest.hash);
      const slots = new Map<string, NodeSlot>();
      for (const row of decoded) for (const slot of row.slots) slots.set(slotId(slot), slot);
      const versions = await mapLimit([...slots.values()], PROOFS_WRITE_READ_CONCURRENCY, (slot) =>
        allEntries(this.#cf(slot.kind), versionsAtOrBelow(slot.prefix, to)),
      );
      this.#forget(slots.values());
      await this.#removing("earliest", newEarliest, (b) => {
        [...slots.values()].forEach((slot, i) => {
          const cf = this.#cf(slot.kind);
          const [survivor, ...older] = versions[i]!;
          if (!survivor) return;
          // The survivor becomes the baseline: version 0, so the path keeps one version ≤ earliest and a later step back finds it there.
          const baseline = nodeKey(slot.prefix, 0n);
          const keepsBaseline = survivor.value.length > 0;
          if (keepsBaseline && keyVersion(survivor.key) !== 0n) b.put(cf, baseline, survivor.value);
          for (const v of [survivor, ...older]) if (!(keepsBaseline && v.key.equals(baseline))) b.delete(cf, v.key);
        });
        for (const r of rows) b.delete(this.#changes, r.key);
        b.put(this.#meta, META.earliest, encodeBlockRef(newEarliest));
      });
      return to;
    });
  }

  /**
   * Every entry of every column family ({@link PROOFS_COLUMN_FAMILIES} order, each in key order),
   * read through one RocksDB snapshot: what `basalt snapshot export` carries. Only on a read-only
   * store (PROOFS_INVALID_INPUT otherwise): it sees the data as of its open, so {@link window} is
   * the window of these entries, where a writer could move it on while they are read.
   */
  async *entries(): AsyncGenerator<{ family: string; key: Buffer; value: Buffer }> {
    if (!this.readOnly) throw invalidInput(`entries() reads a read-only open of ${this.dir}, whose window stays that of the entries`);
    const snapshot = this.#db.snapshot();
    try {
      for (const family of Object.values(PROOFS_COLUMN_FAMILIES)) {
        const cf = snapshot.columnFamily(family);
        try {
          for await (const { key, value } of cf.iterator({})) yield { family, key, value };
        } finally {
          await cf.close();
        }
      }
    } finally {
      await snapshot.close();
    }
  }

  /** Estimated keys and bytes per column family (RocksDB properties; cheap, no scan). */
  async stats(): Promise<ProofsStats> {
    const columnFamilies: Record<string, ColumnFamilyStats> = {};
    for (const [name, cf] of [
      [PROOFS_COLUMN_FAMILIES.account, this.#account],
      [PROOFS_COLUMN_FAMILIES.storage, this.#storage],
      [PROOFS_COLUMN_FAMILIES.changes, this.#changes],
      [PROOFS_COLUMN_FAMILIES.meta, this.#meta],
    ] as const) {
      const [keys, sst, mem] = await Promise.all(
        ["rocksdb.estimate-num-keys", "rocksdb.live-sst-files-size", "rocksdb.cur-size-all-mem-tables"].map((p) => cf.getProperty(p)),
      );
      columnFamilies[name] = { estimatedKeys: Number(keys), bytes: Number(sst) + Number(mem) };
    }
    return { window: this.window(), columnFamilies };
  }

  /** Waits for the write in progress, then closes the database. */
  async close(): Promise<void> {
    await this.#writing;
    await this.#db.close();
  }

  #cf(kind: TrieKind): RocksSession {
    return kind === "account" ? this.#account : this.#storage;
  }

  /** Runs `write` after every write queued before it; PROOFS_READ_ONLY on a read-only store. */
  #exclusive<T>(write: () => Promise<T>): Promise<T> {
    if (this.readOnly) {
      return Promise.reject(new ProofsError({ code: ProofsErrorCode.READ_ONLY }, `proofs store ${this.dir} is open read-only: expected a read-write open to write`));
    }
    const run = this.#writing.then(write);
    this.#writing = run.catch(() => undefined);
    return run;
  }

  /** Builds one batch with `build` and writes it (nothing is written when `build` throws). */
  async #commit(build: (batch: AtomicBatch) => void): Promise<void> {
    const batch = new AtomicBatch(this.#meta);
    try {
      build(batch);
      await batch.commit().catch((e: unknown) => {
        throw writeFailed(this.dir, e);
      });
    } finally {
      batch.discard();
      this.#commits++;
    }
  }

  /**
   * Writes a batch that removes versions and moves one end of the window to `to`. The window
   * shrinks in memory first (reads of the blocks leaving it are refused from then on) and reads
   * in flight are redone; it is put back if the write fails.
   */
  async #removing(end: "earliest" | "latest", to: BlockRef, build: (batch: AtomicBatch) => void): Promise<void> {
    const before = end === "earliest" ? this.#earliest : this.#latest;
    this.#setEnd(end, to);
    this.#generation++;
    try {
      await this.#commit(build);
    } catch (e) {
      this.#setEnd(end, before!);
      throw e;
    }
  }

  #setEnd(end: "earliest" | "latest", ref: BlockRef): void {
    if (end === "earliest") this.#earliest = ref;
    else this.#latest = ref;
  }

  /** The baseline (version 0) value of each slot, null where there is none; one read batch per trie kind. */
  async #baselines(slots: { slot: NodeSlot }[]): Promise<(Buffer | null)[]> {
    const out = new Array<Buffer | null>(slots.length);
    await Promise.all(
      (["account", "storage"] as const).map(async (kind) => {
        const at = slots.flatMap(({ slot }, i) => (slot.kind === kind ? [i] : []));
        const values = await getMany(this.#cf(kind), at.map((i) => nodeKey(slots[i]!.slot.prefix, 0n)));
        at.forEach((i, j) => (out[i] = values[j]!));
      }),
    );
    return out;
  }

  /** The change-index row of `block`, which must exist. */
  async #changeRow(block: bigint): Promise<{ hash: Buffer; slots: NodeSlot[] }> {
    const value = await this.#changes.get(changeIndexKey(block));
    if (!value) throw corrupt(this.dir, `no change-index row for block ${block}, which is inside the window`);
    return this.#decodeRow(value, block);
  }

  #decodeRow(value: Buffer, block: bigint): { hash: Buffer; slots: NodeSlot[] } {
    try {
      return decodeChangeRow(value);
    } catch (e) {
      throw corrupt(this.dir, `change-index row of block ${block}: ${(e as ProofsError).meta.reason}`);
    }
  }

  /** The store's hash of block `n`, or undefined outside the window (reorg detection: compared with the chain's canonical hash). */
  async blockHash(n: bigint): Promise<Uint8Array | undefined> {
    if (this.#earliest === undefined || this.#latest === undefined || n < this.#earliest.number || n > this.#latest.number) return undefined;
    return this.#blockHash(n);
  }

  /** The store's hash of block `n` (earliest ≤ n ≤ latest). */
  async #blockHash(n: bigint): Promise<Uint8Array> {
    if (n === this.#earliest!.number) return this.#earliest!.hash;
    if (n === this.#latest!.number) return this.#latest!.hash;
    return (await this.#changeRow(n)).hash;
  }

  #requireWindow(): { earliest: BlockRef; latest: BlockRef } {
    if (!this.#earliest || !this.#latest) {
      throw new ProofsError({ code: ProofsErrorCode.NOT_INITIALIZED }, `proofs store ${this.dir} has no window yet: expected its baseline to be committed first`);
    }
    return { earliest: this.#earliest, latest: this.#latest };
  }

  #requireUninitialized(): void {
    if (this.#earliest && this.#latest) {
      throw new ProofsError(
        { code: ProofsErrorCode.ALREADY_INITIALIZED, earliest: this.#earliest.number.toString(), latest: this.#latest.number.toString() },
        `proofs store ${this.dir} already has a window [${this.#earliest.number}, ${this.#latest.number}]: a baseline is written only into a new store`,
      );
    }
  }

  #checkInWindow(block: bigint): void {
    const { earliest, latest } = this.#requireWindow();
    if (block < earliest.number || block > latest.number) {
      throw new ProofsError(
        { code: ProofsErrorCode.OUTSIDE_WINDOW, block: block.toString(), earliest: earliest.number.toString(), latest: latest.number.toString() },
        `block ${block} is outside the proofs window: expected a block from ${earliest.number} to ${latest.number}`,
      );
    }
  }
}

/** The empty value: a tombstone. */
const EMPTY = new Uint8Array(0);

/** The slots of `items`, one per path (the last item wins; a repeated path throws with `strict`). */
function distinctSlots<T extends { trie: TrieRef; path: Uint8Array }>(items: T[], strict: boolean): { slot: Slot; item: T }[] {
  const bySlot = new Map<string, { slot: Slot; item: T }>();
  for (const item of items) {
    const slot: NodeSlot = { kind: item.trie.kind, prefix: nodePrefix(item.trie, item.path) };
    const id = slotId(slot);
    if (strict && bySlot.has(id)) throw invalidInput(`${describe(item.trie, item.path)} appears twice in one block's changes`);
    bySlot.set(id, { slot: { ...slot, id }, item });
  }
  return [...bySlot.values()];
}

function slotId(slot: NodeSlot): string {
  return `${slot.kind}:${slot.prefix.toString("hex")}`;
}

/** `fn` over `items` with at most `limit` calls in flight, results in order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function checkHash(hash: Uint8Array, what: string): void {
  if (hash.length !== HASH_BYTES) throw invalidInput(`a ${what} has ${HASH_BYTES} bytes, got ${hash.length}`);
}

function uint256(n: bigint): Buffer {
  if (n < 0n || n >= 2n ** 256n) throw invalidInput(`a chain id is 0..2^256-1, got ${n}`);
  return Buffer.from(n.toString(16).padStart(64, "0"), "hex");
}

function copyRef(ref: BlockRef | undefined): BlockRef | undefined {
  return ref && { number: ref.number, hash: new Uint8Array(ref.hash) };
}

function sameNode(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b || (a ?? b)!.length === 0;
  return bytesEqual(a, b);
}

function nodeText(node: Uint8Array | null): string {
  return node && node.length > 0 ? `node ${to0x(node)}` : "no node";
}

function describe(trie: TrieRef, path: Uint8Array): string {
  const nibbles = Buffer.from(path).toString("hex").replace(/0(.)/g, "$1");
  return trie.kind === "account" ? `account-trie path [${nibbles}]` : `storage-trie path [${nibbles}] of ${to0x(trie.hashedAddress)}`;
}

function outOfOrder(what: string, expected: string, expectedRef: string, gotRef: string): ProofsError {
  return new ProofsError({ code: ProofsErrorCode.OUT_OF_ORDER, expected: expectedRef, got: gotRef }, `${what} is out of order for the proofs window: expected ${expected}`);
}

function blockMismatch(target: BlockRef, storeHash: Uint8Array): ProofsError {
  return new ProofsError(
    { code: ProofsErrorCode.BLOCK_MISMATCH, number: target.number.toString(), storeHash: to0x(storeHash), hash: to0x(target.hash) },
    `block ${target.number} is ${to0x(target.hash)} for the caller but ${to0x(storeHash)} in the proofs store: expected the same chain`,
  );
}
