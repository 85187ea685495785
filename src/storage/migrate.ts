/**
 * Converts a datadir of the plain-keyed state layout (state layout 1: `accounts` by address,
 * `storage` by address ‖ slot, hash-keyed `trie` never pruned, history by plain keys) to the
 * current one in place — `basalt db migrate` — without replaying a block:
 *
 * 1. **accounts**: each account to `hashedAccounts` under keccak(address), its RLP made slim;
 * 2. **storage**: each slot to `hashedStorage` under keccak(address) ‖ keccak(slot);
 * 3. **tries**: the path-keyed tries rebuilt from the new flat tables (storage/bulkLoad.ts), each
 *    storage root checked against its account and the state root against the head's header:
 *    a datadir whose flat state is not its head's is refused before anything old is removed;
 * 4. **history**: every entry of `accountHistory`, `storageHistory` and `changeSets` re-keyed by
 *    hashed address and slot (old and new keys have different lengths, so a table part-converted
 *    is told apart entry by entry), account values made slim;
 * 5. **finish**: the old tables dropped, the layout version and state root recorded.
 *
 * Each step commits in transactions of {@link BULK_LOAD_TXN_WRITES} writes and records where it is
 * in `meta.migration`; a kill loses at most one transaction and a rerun continues. Until step 4
 * the datadir still opens with the basalt that wrote it; from step 4 on, only with this one.
 */
import { RLP } from "@ethereumjs/rlp";
import { BULK_LOAD_TXN_WRITES } from "./constants.js";
import { keccak256 } from "../util/keccak.js";
import { slimAccountRlp } from "./accountCodec.js";
import { hashAddress } from "./hashedKeys.js";
import { asBuffer } from "../util/bytes.js";
import { buildTriesFromFlat } from "./bulkLoad.js";
import { StorageError, StorageErrorCode } from "./errors.js";
import { ChainStore, MetaKey, STATE_LAYOUT_VERSION } from "./store.js";

type Table = ChainStore["code"];

/** The steps of a migration, in order. */
const MIGRATION_STEPS = ["accounts", "storage", "tries", "history", "finish"] as const;
/** One step of {@link MIGRATION_STEPS}. */
export type MigrationStep = (typeof MIGRATION_STEPS)[number];

/** Where a migration is (`meta.migration`). */
interface Marker {
  step: MigrationStep;
  /** Hex of the last old key converted in the step (accounts, storage). */
  last?: string;
}

/** Progress of a migration step (for the command's progress lines and ETA). */
export interface MigrationProgress {
  step: MigrationStep;
  /** Entries of the step done so far (this run and the ones before it where known). */
  done: number;
  /** Entries the step has in all, when known. */
  total?: number;
}

/** Options of {@link migrateDatadir}. */
interface MigrateOptions {
  onProgress?: (p: MigrationProgress) => void;
  /** Polled between transactions: true stops the migration there (resumable). */
  stopRequested?: () => boolean;
  /** Writes per transaction (default {@link BULK_LOAD_TXN_WRITES}; tests use small ones to get many). */
  txnWrites?: number;
}

/** What {@link migrateDatadir} did. */
interface MigrationResult {
  /** "current": nothing to do; "migrated": converted (now or by an earlier run); "stopped": interrupted, rerun to continue. */
  outcome: "current" | "migrated" | "stopped";
  /** Whether it continued an interrupted migration. */
  resumed: boolean;
  accounts: number;
  slots: number;
  historyEntries: number;
  stateRoot?: Uint8Array;
}

const LEGACY_ADDRESS_BYTES = 20;
const SLOT_BYTES = 32;
const BLOCK_BYTES = 8;
/** Key lengths of the old history tables (address, slot and block) and their change-set rows ('a' or 's' after the block). */
const OLD_ACCOUNT_HISTORY_KEY = LEGACY_ADDRESS_BYTES + BLOCK_BYTES;
const OLD_STORAGE_HISTORY_KEY = LEGACY_ADDRESS_BYTES + SLOT_BYTES + BLOCK_BYTES;
const OLD_CHANGE_ACCOUNT_KEY = BLOCK_BYTES + 1 + LEGACY_ADDRESS_BYTES;
const OLD_CHANGE_SLOT_KEY = BLOCK_BYTES + 1 + LEGACY_ADDRESS_BYTES + SLOT_BYTES;

function entries(db: Table): number | undefined {
  return (db.getStats() as { entryCount?: number }).entryCount;
}

/** The head block's state root, read from its header (field 3 of the RLP list). */
function headStateRoot(store: ChainStore): Uint8Array {
  const head = store.getPointer("head");
  const rlp = head === undefined ? undefined : store.getHeaderRlp(head);
  if (rlp === undefined) throw new StorageError({ code: StorageErrorCode.MISSING_DATA }, `datadir store at ${store.path} has no head header: nothing to migrate from`);
  return (RLP.decode(rlp) as Uint8Array[])[3]!;
}

/**
 * Migrates the datadir's store to the current state layout in place (see the module comment), or
 * continues an interrupted migration.
 * @throws StorageError `STORAGE_LAYOUT_UNKNOWN` for a layout newer than this basalt's;
 *   `STORAGE_BULK_LOAD_ROOT` when the old flat state does not give the head's state root.
 */
export async function migrateDatadir(datadir: string, opts: MigrateOptions = {}): Promise<MigrationResult> {
  const { store, legacy } = ChainStore.openForMigration(datadir);
  try {
    const version = store.meta.get(MetaKey.stateLayout) as number | undefined;
    const marker = store.getMeta<Marker>(MetaKey.migration);
    const none = { accounts: 0, slots: 0, historyEntries: 0 };
    if (version === STATE_LAYOUT_VERSION && marker === undefined) return { outcome: "current", resumed: false, ...none };
    if (version !== undefined && version !== STATE_LAYOUT_VERSION) {
      throw new StorageError({ code: StorageErrorCode.LAYOUT_UNKNOWN, datadir, found: version, expected: STATE_LAYOUT_VERSION }, `datadir ${datadir} has state layout ${String(version)}, newer than this basalt's ${STATE_LAYOUT_VERSION}: use the basalt that wrote it`);
    }
    if (store.getPointer("genesis") === undefined && marker === undefined) {
      // An empty datadir: stamp it, there is nothing to convert.
      store.meta.putSync(MetaKey.stateLayout, STATE_LAYOUT_VERSION);
      return { outcome: "current", resumed: false, ...none };
    }
    const run = new Migration(store, legacy, opts);
    const outcome = run.run(marker);
    return { outcome, resumed: marker !== undefined, accounts: run.accounts, slots: run.slots, historyEntries: run.historyEntries, ...(run.stateRoot === undefined ? {} : { stateRoot: run.stateRoot }) };
  } finally {
    await store.close();
  }
}

class Migration {
  accounts = 0;
  slots = 0;
  historyEntries = 0;
  stateRoot: Uint8Array | undefined;
  private readonly txnWrites: number;

  constructor(
    private readonly store: ChainStore,
    private readonly legacy: Record<"accounts" | "storage" | "trie", Table>,
    private readonly opts: MigrateOptions,
  ) {
    this.txnWrites = opts.txnWrites ?? BULK_LOAD_TXN_WRITES;
  }

  private stop(): boolean {
    return this.opts.stopRequested?.() === true;
  }

  private mark(m: Marker): void {
    this.store.meta.put(MetaKey.migration, m);
  }

  run(marker: Marker | undefined): "migrated" | "stopped" {
    let at = MIGRATION_STEPS.indexOf(marker?.step ?? "accounts");
    if (marker === undefined) this.store.root.transactionSync(() => this.mark({ step: "accounts" }));
    for (; at < MIGRATION_STEPS.length; at++) {
      const step = MIGRATION_STEPS[at]!;
      const last = marker?.step === step && marker.last !== undefined ? Buffer.from(marker.last, "hex") : undefined;
      const finished = this.runStep(step, last);
      if (!finished) return "stopped";
      const next = MIGRATION_STEPS[at + 1];
      if (next !== undefined) this.store.root.transactionSync(() => this.mark({ step: next }));
    }
    return "migrated";
  }

  private runStep(step: MigrationStep, last: Buffer | undefined): boolean {
    switch (step) {
      case "accounts":
        return this.copyFlat("accounts", last);
      case "storage":
        return this.copyFlat("storage", last);
      case "tries": {
        const expected = headStateRoot(this.store);
        const total = entries(this.store.hashedAccounts);
        this.stateRoot = buildTriesFromFlat(this.store, {
          expectedRoot: expected,
          txnWrites: this.txnWrites,
          onProgress: (p) => this.opts.onProgress?.({ step: "tries", done: p.accounts, ...(total === undefined ? {} : { total }) }),
        });
        return true;
      }
      case "history":
        return this.rekeyHistory();
      case "finish":
        this.finish();
        return true;
    }
  }

  /** Steps 1 and 2: the old flat table to its hashed twin, resuming after `last`. */
  private copyFlat(which: "accounts" | "storage", last: Buffer | undefined): boolean {
    const from = this.legacy[which];
    const total = entries(from);
    let done = 0;
    let start: Buffer | undefined = last;
    for (;;) {
      if (this.stop()) return false;
      const batch: { key: Buffer; value: Buffer }[] = [];
      for (const e of from.getRange({ ...(start === undefined ? {} : { start }), limit: this.txnWrites + 1 })) {
        if (start !== undefined && Buffer.compare(e.key, start) === 0) continue;
        batch.push({ key: Buffer.from(e.key), value: Buffer.from(e.value) });
        if (batch.length === this.txnWrites) break;
      }
      if (batch.length === 0) return true;
      this.store.root.transactionSync(() => {
        for (const { key, value } of batch) {
          if (which === "accounts") {
            this.store.hashedAccounts.put(asBuffer(hashAddress(key)), Buffer.from(slimAccountRlp(value)));
          } else {
            const k = Buffer.concat([hashAddress(key.subarray(0, LEGACY_ADDRESS_BYTES)), keccak256(key.subarray(LEGACY_ADDRESS_BYTES))]);
            this.store.hashedStorage.put(k, value);
          }
        }
        start = batch[batch.length - 1]!.key;
        this.mark({ step: which, last: start.toString("hex") });
      });
      done += batch.length;
      if (which === "accounts") this.accounts += batch.length;
      else this.slots += batch.length;
      this.opts.onProgress?.({ step: which, done, ...(total === undefined ? {} : { total }) });
    }
  }

  /** Step 4: the three history tables re-keyed by hashed address and slot. */
  private rekeyHistory(): boolean {
    const h = (a: Uint8Array): Uint8Array => hashAddress(a);
    const tables: { db: Table; convert: (key: Buffer, value: Buffer) => [Buffer, Buffer] | undefined }[] = [
      {
        db: this.store.accountHistory,
        convert: (k, v) =>
          k.length === OLD_ACCOUNT_HISTORY_KEY ? [Buffer.concat([h(k.subarray(0, LEGACY_ADDRESS_BYTES)), k.subarray(LEGACY_ADDRESS_BYTES)]), v.length === 0 ? v : Buffer.from(slimAccountRlp(v))] : undefined,
      },
      {
        db: this.store.storageHistory,
        convert: (k, v) =>
          k.length === OLD_STORAGE_HISTORY_KEY
            ? [Buffer.concat([h(k.subarray(0, LEGACY_ADDRESS_BYTES)), keccak256(k.subarray(LEGACY_ADDRESS_BYTES, LEGACY_ADDRESS_BYTES + SLOT_BYTES)), k.subarray(LEGACY_ADDRESS_BYTES + SLOT_BYTES)]), v]
            : undefined,
      },
      {
        db: this.store.changeSets,
        convert: (k, v) => {
          const head = k.subarray(0, BLOCK_BYTES + 1);
          if (k.length === OLD_CHANGE_ACCOUNT_KEY && k[BLOCK_BYTES] === 0x61) return [Buffer.concat([head, h(k.subarray(BLOCK_BYTES + 1))]), v];
          if (k.length === OLD_CHANGE_SLOT_KEY && k[BLOCK_BYTES] === 0x73) {
            const a = k.subarray(BLOCK_BYTES + 1, BLOCK_BYTES + 1 + LEGACY_ADDRESS_BYTES);
            return [Buffer.concat([head, h(a), keccak256(k.subarray(BLOCK_BYTES + 1 + LEGACY_ADDRESS_BYTES))]), v];
          }
          return undefined;
        },
      },
    ];
    const total = tables.reduce((n, t) => n + (entries(t.db) ?? 0), 0);
    let done = 0;
    for (const { db, convert } of tables) {
      // New keys land among the old ones; the scan goes on from the last old key converted and skips them.
      let start: Buffer | undefined;
      for (;;) {
        if (this.stop()) return false;
        const batch: [Buffer, Buffer, Buffer][] = [];
        let scanned = 0;
        for (const e of db.getRange(start === undefined ? {} : { start })) {
          scanned++;
          const c = convert(e.key, e.value);
          if (c !== undefined) batch.push([Buffer.from(e.key), Buffer.from(c[0]), Buffer.from(c[1])]);
          if (batch.length === this.txnWrites || scanned >= 4 * this.txnWrites) {
            start = Buffer.from(e.key);
            break;
          }
          start = undefined;
        }
        if (batch.length === 0 && start === undefined) break;
        this.store.root.transactionSync(() => {
          for (const [oldKey, key, value] of batch) {
            db.remove(oldKey);
            db.put(key, value);
          }
        });
        done += batch.length;
        this.historyEntries += batch.length;
        this.opts.onProgress?.({ step: "history", done, total });
        if (start === undefined) break;
      }
    }
    return true;
  }

  /** Step 5: the old tables dropped, the new layout recorded. */
  private finish(): void {
    const root = this.stateRoot ?? headStateRoot(this.store);
    // Each drop commits on its own; a kill between them and the marker's removal reruns this step.
    for (const db of Object.values(this.legacy)) db.dropSync();
    this.store.root.transactionSync(() => {
      this.store.meta.put(MetaKey.stateRoot, Buffer.from(root));
      this.store.meta.put(MetaKey.stateLayout, STATE_LAYOUT_VERSION);
      this.store.meta.remove(MetaKey.migration);
    });
    this.stateRoot = root;
  }
}
