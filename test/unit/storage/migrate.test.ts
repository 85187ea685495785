/**
 * `basalt db migrate` (storage/migrate.ts) on a real datadir of the plain-keyed layout: the
 * fixture `test/fixtures/legacy-layout-1/data.mdb.gz` was written by basalt at commit e7afb62
 * (the last with state layout 1) running the devnet with `--history.blocks 64`: a contract
 * deployed, eight of its slots set, overwritten and partly zeroed over six rounds, and transfers
 * creating six accounts (see the fixture's README). The migrated store must hold every old
 * account and slot under its hashed key, tries that verify and give the head's state root, and a
 * history from which every block in the window reverts to its header's state root; an
 * interrupted migration must continue to the same tables as an uninterrupted one.
 */
import { RLP } from "@ethereumjs/rlp";
import { open } from "lmdb";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { slimAccountRlp } from "../../../src/storage/accountCodec.js";
import { verifyState } from "../../../src/storage/bulkLoad.js";
import { StorageError } from "../../../src/storage/errors.js";
import { migrateDatadir, type MigrationProgress } from "../../../src/storage/migrate.js";
import { revertState } from "../../../src/storage/stateRevert.js";
import { ChainStore, MetaKey } from "../../../src/storage/store.js";
import { keccak256 } from "../../../src/util/keccak.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-migrate-");

const FIXTURE = new URL("../../fixtures/legacy-layout-1/data.mdb.gz", import.meta.url);

/** A fresh copy of the legacy datadir. */
function legacyDatadir(): string {
  const d = tmp();
  mkdirSync(path.join(d, "chain"));
  writeFileSync(path.join(d, "chain", "data.mdb"), gunzipSync(readFileSync(FIXTURE)));
  return d;
}

/** The old layout's flat state and history, read straight from the environment. */
async function readLegacy(datadir: string): Promise<{ accounts: Map<string, Buffer>; storage: Map<string, Buffer>; history: number }> {
  const root = open({ path: path.join(datadir, "chain"), maxDbs: 32, readOnly: true, compression: false });
  const db = (name: string) => root.openDB({ name, encoding: "binary", keyEncoding: "binary" });
  const accounts = new Map<string, Buffer>();
  for (const { key, value } of db("accounts").getRange({})) accounts.set(Buffer.from(key as Buffer).toString("hex"), Buffer.from(value as Buffer));
  const storage = new Map<string, Buffer>();
  for (const { key, value } of db("storage").getRange({})) storage.set(Buffer.from(key as Buffer).toString("hex"), Buffer.from(value as Buffer));
  let history = 0;
  for (const name of ["accountHistory", "storageHistory", "changeSets"]) history += [...db(name).getKeys({})].length;
  await root.close();
  return { accounts, storage, history };
}

function dump(store: ChainStore): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const name of ["hashedAccounts", "hashedStorage", "accountTrie", "storageTrie", "accountHistory", "storageHistory", "changeSets", "code"] as const) {
    out[name] = [...store[name].getRange({})].map(({ key, value }) => `${key.toString("hex")}=${value.toString("hex")}`);
  }
  return out;
}

function headerOf(store: ChainStore, number: bigint): { number: bigint; stateRoot: Uint8Array } {
  const hash = store.getCanonicalHash(number)!;
  const fields = RLP.decode(store.getHeaderRlp(hash)!) as Uint8Array[];
  return { number, stateRoot: fields[3]! };
}

describe("basalt db migrate", () => {
  it("refuses to open the old layout, naming the command that converts it", () => {
    const d = legacyDatadir();
    let err: unknown;
    try {
      ChainStore.open(d);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StorageError);
    expect((err as StorageError).code).toBe("STORAGE_LAYOUT_OUTDATED");
    expect((err as Error).message).toContain(`basalt db migrate --datadir ${d}`);
  });

  it("converts the state, tries and history in place: every account and slot by hashed key, the head's root, every block of the window revertible", async () => {
    const d = legacyDatadir();
    const legacy = await readLegacy(d);
    expect(legacy.accounts.size).toBeGreaterThan(6);
    expect(legacy.storage.size).toBeGreaterThan(0);
    expect(legacy.history).toBeGreaterThan(0);
    const r = await migrateDatadir(d);
    expect(r.outcome).toBe("migrated");
    expect(r.accounts).toBe(legacy.accounts.size);
    expect(r.slots).toBe(legacy.storage.size);
    expect(r.historyEntries).toBe(legacy.history);

    const store = ChainStore.open(d);
    try {
      const head = store.getPointer("head")!;
      const headNumber = (RLP.decode(store.getHeaderRlp(head)!) as Uint8Array[])[8]!;
      const number = BigInt("0x" + (Buffer.from(headNumber).toString("hex") || "0"));
      const top = headerOf(store, number);
      expect(Buffer.from(store.getStateRoot()!).toString("hex")).toBe(Buffer.from(top.stateRoot).toString("hex"));
      expect(verifyState(store, top.stateRoot).problems).toEqual([]);
      for (const [address, full] of legacy.accounts) {
        expect(store.getAccount(keccak256(Buffer.from(address, "hex")))?.toString("hex")).toBe(Buffer.from(slimAccountRlp(full)).toString("hex"));
      }
      for (const [key, value] of legacy.storage) {
        const k = Buffer.from(key, "hex");
        expect(store.getStorage(keccak256(k.subarray(0, 20)), keccak256(k.subarray(20)))?.toString("hex")).toBe(value.toString("hex"));
      }
      // Every block the history covers reverts to its header's root (revertState checks each storage root and the state root).
      const floor = store.historyFloor();
      expect(number - floor).toBeGreaterThan(5n);
      for (let b = number - 1n; b >= floor && b >= number - 12n; b--) {
        expect(() => revertState(store, top, headerOf(store, b))).not.toThrow();
      }
      expect(store.getMeta(MetaKey.migration)).toBeUndefined();
    } finally {
      await store.close();
    }
    expect((await migrateDatadir(d)).outcome).toBe("current");
  });

  it("stops when asked and continues to the same tables as an uninterrupted run", async () => {
    const whole = legacyDatadir();
    await migrateDatadir(whole);
    const wholeStore = ChainStore.open(whole);
    const want = dump(wholeStore);
    await wholeStore.close();

    const d = legacyDatadir();
    const seen: MigrationProgress["step"][] = [];
    for (const stopAt of ["accounts", "storage", "tries", "history"] as const) {
      const r = await migrateDatadir(d, {
        onProgress: (p) => {
          if (!seen.includes(p.step)) seen.push(p.step);
        },
        stopRequested: () => seen.includes(stopAt),
      });
      expect(r.outcome).toBe("stopped");
      expect(r.resumed).toBe(stopAt !== "accounts");
    }
    const last = await migrateDatadir(d);
    expect(last.outcome).toBe("migrated");
    expect(last.resumed).toBe(true);
    const store = ChainStore.open(d);
    try {
      expect(dump(store)).toEqual(want);
    } finally {
      await store.close();
    }
  });
});
