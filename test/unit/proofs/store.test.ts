/**
 * The historical proofs store (src/proofs/store.ts) on real RocksDB databases in temporary
 * directories: opening and its refusals, versioned reads, the order checks of every write, a
 * seeded random sequence of forward blocks, backward steps, unwinds and prunes checked after each
 * operation against a reference model (model.ts: the full state of every block), an audit of the
 * on-disk invariants, and kills of a child process in the middle of such a sequence.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  changeIndexKey,
  decodeBlockRef,
  decodeChangeRow,
  decodePath,
  encodeChangeRow,
  encodePath,
  keyPrefix,
  keyVersion,
  nodeKey,
  nodePrefix,
} from "../../../src/proofs/keys.js";
import { AtomicBatch, allEntries, rocksOpen, type RocksSession } from "../../../src/proofs/rocks.js";
import { PROOFS_COLUMN_FAMILIES, ProofsStore, type ProofsStoreOptions } from "../../../src/proofs/store.js";
import type { BlockRef, TrieRef } from "../../../src/proofs/types.js";
import { REPO_ROOT } from "../../helpers/basaltProcess.js";
import { writeProofsMeta } from "../../helpers/proofs.js";
import type { CrashInput } from "./crashChild.js";
import { ChainModel, runOp, toJson, windowShape, type ModelOptions, type WindowShape } from "./model.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A new temporary directory for one store (removed after the file's tests). */
function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), "basalt-proofs-"));
  dirs.push(d);
  return path.join(d, "proofs");
}

const CHAIN: ProofsStoreOptions = { chainId: 8453n, genesisHash: new Uint8Array(32).fill(0xaa) };
const ACCOUNT: TrieRef = { kind: "account" };
const ALICE: TrieRef = { kind: "storage", hashedAddress: new Uint8Array(32).fill(1) };
const BOB: TrieRef = { kind: "storage", hashedAddress: new Uint8Array(32).fill(2) };
const P = Uint8Array.of(1, 2, 3);
const Q = Uint8Array.of(4);

const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);
const hash = (n: number): Uint8Array => new Uint8Array(32).fill(n);
const ref = (n: number, h = n): BlockRef => ({ number: BigInt(n), hash: hash(h) });
const hex = (b: Uint8Array | undefined): string => (b ? Buffer.from(b).toString("hex") : "-");

/** The raw database of a store, opened read-only beside it (RocksDB allows that). */
async function rawReadOnly(dir: string): Promise<{ db: RocksSession; cf: (name: string) => RocksSession }> {
  const db = rocksOpen(dir, { columnFamilies: Object.values(PROOFS_COLUMN_FAMILIES), readOnly: true });
  await db.ready();
  return { db, cf: (name) => db.columnFamily(name) };
}

/**
 * The on-disk invariants of a store (store.ts module comment), read from its raw column
 * families: the change index has one row per block of (earliest, latest]; every version above
 * the earliest is listed in its block's row and none is above the latest; no version is in
 * (0, earliest], and no baseline (version 0) is a tombstone. Returns the violations.
 */
async function audit(dir: string): Promise<string[]> {
  const { db, cf } = await rawReadOnly(dir);
  try {
    const meta = cf(PROOFS_COLUMN_FAMILIES.meta);
    const earliest = decodeBlockRef((await meta.get(Buffer.from("earliest")))!)!.number;
    const latest = decodeBlockRef((await meta.get(Buffer.from("latest")))!)!.number;
    const problems: string[] = [];
    const listed = new Map<bigint, Set<string>>();
    for (const row of await allEntries(cf(PROOFS_COLUMN_FAMILIES.changes), {})) {
      const n = row.key.readBigUInt64BE();
      listed.set(n, new Set(decodeChangeRow(row.value).slots.map((s) => `${s.kind}:${s.prefix.toString("hex")}`)));
    }
    const rows = [...listed.keys()];
    const want = Array.from({ length: Number(latest - earliest) }, (_, i) => earliest + 1n + BigInt(i));
    if (rows.join() !== want.join()) problems.push(`change-index rows ${rows.join()} for window (${earliest}, ${latest}]`);
    for (const kind of ["account", "storage"] as const) {
      for (const { key, value } of await allEntries(cf(PROOFS_COLUMN_FAMILIES[kind]), {})) {
        const v = keyVersion(key);
        const id = `${kind}:${keyPrefix(key).toString("hex")}`;
        if (v > latest) problems.push(`${id} has version ${v} above the latest ${latest}`);
        else if (v > earliest && !listed.get(v)?.has(id)) problems.push(`${id} version ${v} is not in the change index`);
        else if (v <= earliest && v !== 0n) problems.push(`${id} has version ${v} in (0, earliest ${earliest}]`);
        else if (v === 0n && value.length === 0) problems.push(`${id} has a tombstone as its baseline`);
      }
    }
    return problems;
  } finally {
    await db.close();
  }
}

/** Checks every read of every slot at every block of window `w` against the model. */
async function expectReads(store: ProofsStore, model: ChainModel, w: WindowShape, blocks?: bigint[]): Promise<void> {
  const want = model.readsOf(w);
  for (const n of blocks ?? [...want.keys()]) {
    const got = await Promise.all(model.slots.map(async (s) => hex(await store.node(s.trie, s.path, n))));
    expect(got, `reads at block ${n}`).toEqual(want.get(n));
  }
}

/** A store with the model's baseline committed. */
async function baselineStore(dir: string, model: ChainModel): Promise<ProofsStore> {
  const store = await ProofsStore.open(dir, CHAIN);
  const entries = model.baselineEntries();
  const half = Math.ceil(entries.length / 2);
  await store.writeBaseline(entries.slice(0, half), bytes(1));
  await store.writeBaseline(entries.slice(half), bytes(2));
  await store.commitBaseline(model.baselineHead());
  return store;
}

/**
 * A store whose only path is `path` of `trie`: node `[n]` from block n, for the baseline at
 * `base` and blocks base+1..top (none where `removedAt` says so).
 */
async function oneSlotStore(trie: TrieRef, path: Uint8Array, base: number, top: number, removedAt = -1): Promise<{ dir: string; store: ProofsStore }> {
  const dir = tempDir();
  const store = await ProofsStore.open(dir, CHAIN);
  await store.writeBaseline([{ trie, path, node: bytes(base) }], bytes(0));
  await store.commitBaseline(ref(base));
  await writeBlocks(store, trie, path, base + 1, top, removedAt);
  return { dir, store };
}

/** Blocks `from..to` (children of ref(from - 1)), each setting `path` of `trie` to `[n]` (removing it at `removedAt`). */
async function writeBlocks(store: ProofsStore, trie: TrieRef, path: Uint8Array, from: number, to: number, removedAt = -1): Promise<void> {
  for (let n = from; n <= to; n++) await store.writeBlock(ref(n), hash(n - 1), [{ trie, path, node: n === removedAt ? null : bytes(n) }]);
}

describe("proofs keys", () => {
  it("packs paths prefix-free, high nibble first, with their length", () => {
    expect(encodePath(Uint8Array.of()).toString("hex")).toBe("00");
    expect(encodePath(Uint8Array.of(1, 2, 3)).toString("hex")).toBe("031230");
    expect(encodePath(Uint8Array.of(1, 2, 3, 0)).toString("hex")).toBe("041230");
    expect(encodePath(new Uint8Array(64).fill(15)).toString("hex")).toBe("40" + "ff".repeat(32));
    expect(decodePath(Buffer.from("ff031230", "hex"), 1)).toEqual({ path: Uint8Array.of(1, 2, 3), end: 4 });
    expect(() => encodePath(new Uint8Array(65))).toThrow(expect.objectContaining({ code: "PROOFS_INVALID_INPUT" }));
  });

  it("orders the versions of a path newest first, after every shorter path key", () => {
    const prefix = nodePrefix(ACCOUNT, P);
    const keys = [0n, 1n, 255n, 256n, 2n ** 64n - 1n].map((v) => nodeKey(prefix, v));
    expect([...keys].sort(Buffer.compare).map(keyVersion)).toEqual([2n ** 64n - 1n, 256n, 255n, 1n, 0n]);
    expect(keys.every((k) => keyPrefix(k).equals(prefix))).toBe(true);
    expect(nodePrefix(ALICE, P).toString("hex")).toBe("01".repeat(32) + "031230");
    expect(() => nodePrefix({ kind: "storage", hashedAddress: bytes(1) }, P)).toThrow(/32 bytes, got 1/);
  });

  it("round-trips a change-index row", () => {
    const slots = [
      { kind: "account" as const, prefix: nodePrefix(ACCOUNT, Uint8Array.of()) },
      { kind: "storage" as const, prefix: nodePrefix(BOB, new Uint8Array(64).fill(7)) },
      { kind: "account" as const, prefix: nodePrefix(ACCOUNT, P) },
    ];
    expect(decodeChangeRow(encodeChangeRow(hash(9), slots))).toEqual({ hash: Buffer.from(hash(9)), slots });
    expect(() => decodeChangeRow(Buffer.concat([encodeChangeRow(hash(9), slots), Buffer.from([0, 5, 0x12])]))).toThrow(/runs past the end/);
  });
});

describe("ProofsStore: opening", () => {
  it("creates a store, reopens it, and keeps the window", async () => {
    const dir = tempDir();
    let store = await ProofsStore.open(dir, CHAIN);
    expect(store.initialized).toBe(false);
    expect(store.window()).toEqual({ earliest: undefined, latest: undefined });
    await store.close();
    store = await ProofsStore.open(dir, CHAIN);
    expect(store.initialized).toBe(false);
    await store.commitBaseline(ref(7));
    await store.close();
    store = await ProofsStore.open(dir, CHAIN);
    expect(store.initialized).toBe(true);
    expect(store.window()).toEqual({ earliest: ref(7), latest: ref(7) });
    await store.close();
  });

  it("refuses a store of another chain id or genesis, naming both", async () => {
    const dir = tempDir();
    await (await ProofsStore.open(dir, CHAIN)).close();
    await expect(ProofsStore.open(dir, { ...CHAIN, chainId: 84532n })).rejects.toMatchObject({
      code: "PROOFS_OTHER_CHAIN",
      message: expect.stringMatching(/chain 8453 with genesis 0xaaaa.*expected chain 84532 with genesis 0xaaaa/),
    });
    await expect(ProofsStore.open(dir, { ...CHAIN, genesisHash: hash(0xbb) })).rejects.toMatchObject({
      code: "PROOFS_OTHER_CHAIN",
      meta: { storeGenesis: `0x${"aa".repeat(32)}`, genesis: `0x${"bb".repeat(32)}` },
    });
    // The refused opens released the database: the right chain opens it again.
    await (await ProofsStore.open(dir, CHAIN)).close();
  });

  it.each([
    ["another schema version", { schema: Uint8Array.of(0, 0, 0, 99) }, /schema version 99, this basalt reads version 1/],
    ["a short schema record", { schema: Uint8Array.of(1) }, /schema version record is 1 bytes, expected 4/],
    ["no schema record", { schema: null }, /schema version record is missing/],
    ["a short chain id", { chain_id: Uint8Array.of(1) }, /chain id record is 1 bytes, expected 32/],
    ["an earliest without a latest", { earliest: new Uint8Array(40) }, /earliest block but no latest/],
    ["a short window record", { earliest: new Uint8Array(40), latest: new Uint8Array(39) }, /window record is 39 bytes/],
  ])("refuses a store with %s as corrupt", async (_what, records, reason) => {
    const dir = tempDir();
    await (await ProofsStore.open(dir, CHAIN)).close();
    await writeProofsMeta(dir, records);
    await expect(ProofsStore.open(dir, CHAIN)).rejects.toMatchObject({ code: "PROOFS_CORRUPT", message: expect.stringMatching(reason) });
  });

  it("refuses a store missing a column family as corrupt, naming it, and does not create it", async () => {
    const dir = tempDir();
    const partial = rocksOpen(dir, { columnFamilies: [PROOFS_COLUMN_FAMILIES.account, PROOFS_COLUMN_FAMILIES.storage, PROOFS_COLUMN_FAMILIES.meta] });
    await partial.ready();
    await partial.close();
    const refusal = { code: "PROOFS_CORRUPT", message: expect.stringMatching(/is corrupt: its column family change_index is missing, expected account_trie, storage_trie, change_index, meta/) };
    await expect(ProofsStore.open(dir, CHAIN)).rejects.toMatchObject(refusal);
    // Neither open created it: a read-only open is refused the same way.
    await expect(ProofsStore.open(dir, { ...CHAIN, readOnly: true })).rejects.toMatchObject(refusal);
  });

  it("refuses a second read-write open as in use (RocksDB's LOCK file), by the store's code", async () => {
    const dir = tempDir();
    const store = await ProofsStore.open(dir, CHAIN);
    try {
      await expect(ProofsStore.open(dir, CHAIN)).rejects.toMatchObject({ code: "PROOFS_IN_USE", meta: { dir, reason: expect.stringMatching(/LOCK/) } });
    } finally {
      await store.close();
    }
  });

  it("opens read-only beside a read-write open; refuses writes and a missing store", async () => {
    const dir = tempDir();
    await expect(ProofsStore.open(dir, { ...CHAIN, readOnly: true })).rejects.toMatchObject({ code: "PROOFS_NOT_INITIALIZED" });
    const store = await ProofsStore.open(dir, CHAIN);
    await store.writeBaseline([{ trie: ACCOUNT, path: P, node: bytes(1) }], bytes(9));
    await store.commitBaseline(ref(3));
    const reader = await ProofsStore.open(dir, { ...CHAIN, readOnly: true });
    expect(await reader.node(ACCOUNT, P, 3n)).toEqual(Buffer.from([1]));
    await expect(reader.writeBlock(ref(4), hash(3), [])).rejects.toMatchObject({ code: "PROOFS_READ_ONLY" });
    // A read-only open sees the data of its own open only.
    await store.writeBlock(ref(4), hash(3), [{ trie: ACCOUNT, path: P, node: bytes(2) }]);
    expect(reader.window().latest).toEqual(ref(3));
    await reader.close();
    await store.close();
  });

  it("refuses hashes that are not 32 bytes", async () => {
    await expect(ProofsStore.open(tempDir(), { ...CHAIN, genesisHash: bytes(1) })).rejects.toMatchObject({ code: "PROOFS_INVALID_INPUT" });
  });
});

describe("ProofsStore: batches", () => {
  it("writes one batch across column families, and a discarded batch frees the database", async () => {
    const dir = tempDir();
    const db = rocksOpen(dir, { columnFamilies: Object.values(PROOFS_COLUMN_FAMILIES) });
    await db.ready();
    const [account, changes] = [db.columnFamily(PROOFS_COLUMN_FAMILIES.account), db.columnFamily(PROOFS_COLUMN_FAMILIES.changes)];
    const batch = new AtomicBatch(changes);
    batch.put(account, bytes(1), bytes(10));
    batch.put(changes, bytes(2), bytes(20));
    batch.put(account, bytes(3), bytes());
    expect(batch.size).toBe(3);
    await batch.commit();
    expect(await account.get(bytes(1))).toEqual(Buffer.from([10]));
    expect(await account.get(bytes(3))).toEqual(Buffer.alloc(0)); // an empty value is not a missing key
    expect(await changes.get(bytes(2))).toEqual(Buffer.from([20]));
    expect(await changes.get(bytes(1))).toBeNull();
    expect(await account.get(bytes(2))).toBeNull();
    const dropped = new AtomicBatch(account);
    dropped.put(account, bytes(4), bytes(40));
    dropped.discard();
    expect(() => dropped.put(account, bytes(5), bytes(50))).toThrow(/after commit or discard/);
    expect(await account.get(bytes(4))).toBeNull();
    await db.close(); // would wait forever on a batch that still held the database
  });
});

describe("ProofsStore: reads and writes", () => {
  it("reads the newest version at or below a block, tombstones as no node, tries apart", async () => {
    const store = await ProofsStore.open(tempDir(), CHAIN);
    await expect(store.node(ACCOUNT, P, 0n)).rejects.toMatchObject({ code: "PROOFS_NOT_INITIALIZED" });
    await store.writeBaseline(
      [
        { trie: ACCOUNT, path: P, node: bytes(0xa0) },
        { trie: ALICE, path: P, node: bytes(0xb0) },
        { trie: BOB, path: Q, node: bytes(0xc0) },
      ],
      bytes(1),
    );
    await store.commitBaseline(ref(10));
    await store.writeBlock(ref(11), hash(10), [{ trie: ACCOUNT, path: P, node: bytes(0xa1) }]);
    await store.writeBlock(ref(12), hash(11), [
      { trie: ALICE, path: P, node: null },
      { trie: BOB, path: P, node: bytes(0xc2) },
    ]);
    await store.writeBlock(ref(13), hash(12), [
      { trie: ACCOUNT, path: P, node: null },
      { trie: ALICE, path: P, node: bytes(0xb3) },
    ]);
    const read = async (trie: TrieRef, path: Uint8Array): Promise<string[]> =>
      Promise.all([10n, 11n, 12n, 13n].map(async (n) => hex(await store.node(trie, path, n))));
    expect(await read(ACCOUNT, P)).toEqual(["a0", "a1", "a1", "-"]);
    expect(await read(ALICE, P)).toEqual(["b0", "b0", "-", "b3"]);
    expect(await read(BOB, P)).toEqual(["-", "-", "c2", "c2"]);
    expect(await read(BOB, Q)).toEqual(["c0", "c0", "c0", "c0"]);
    expect(await read(ALICE, Q)).toEqual(["-", "-", "-", "-"]);
    expect(await read(ACCOUNT, Q)).toEqual(["-", "-", "-", "-"]);
    // A path and the same nibbles with a 0 appended pack to the same bytes: the length keeps them apart.
    expect(await read(ACCOUNT, Uint8Array.of(1, 2, 3, 0))).toEqual(["-", "-", "-", "-"]);
    await expect(store.node(ACCOUNT, P, 14n)).rejects.toMatchObject({ code: "PROOFS_OUTSIDE_WINDOW", message: expect.stringMatching(/from 10 to 13/) });
    await expect(store.node(ACCOUNT, P, 9n)).rejects.toMatchObject({ code: "PROOFS_OUTSIDE_WINDOW" });
    await expect(store.node(ACCOUNT, Uint8Array.of(16), 10n)).rejects.toMatchObject({ code: "PROOFS_INVALID_INPUT" });
    await store.close();
  });

  it("writes a baseline in parts with a resume marker, once", async () => {
    const dir = tempDir();
    let store = await ProofsStore.open(dir, CHAIN);
    expect(store.baselineProgress()).toBeUndefined();
    await store.writeBaseline([{ trie: ACCOUNT, path: P, node: bytes(1) }], bytes(0x51));
    await store.close();
    store = await ProofsStore.open(dir, CHAIN);
    expect(store.baselineProgress()).toEqual(bytes(0x51));
    await store.writeBaseline([{ trie: ACCOUNT, path: Q, node: bytes(2) }], bytes(0x52));
    await expect(store.writeBaseline([{ trie: ACCOUNT, path: Q, node: bytes() }], bytes(0x53))).rejects.toMatchObject({ code: "PROOFS_INVALID_INPUT" });
    expect(store.baselineProgress()).toEqual(bytes(0x52));
    await store.commitBaseline(ref(5));
    expect(store.baselineProgress()).toBeUndefined();
    expect(hex(await store.node(ACCOUNT, P, 5n)) + hex(await store.node(ACCOUNT, Q, 5n))).toBe("0102");
    await expect(store.writeBaseline([], bytes(0))).rejects.toMatchObject({ code: "PROOFS_ALREADY_INITIALIZED" });
    await expect(store.commitBaseline(ref(6))).rejects.toMatchObject({ code: "PROOFS_ALREADY_INITIALIZED" });
    await store.close();
    store = await ProofsStore.open(dir, CHAIN);
    expect(store.baselineProgress()).toBeUndefined();
    await store.close();
  });

  it("refuses blocks that do not extend the latest, naming both", async () => {
    const store = await ProofsStore.open(tempDir(), CHAIN);
    await expect(store.writeBlock(ref(1), hash(0), [])).rejects.toMatchObject({ code: "PROOFS_NOT_INITIALIZED" });
    await store.commitBaseline(ref(20));
    await expect(store.writeBlock(ref(22), hash(20), [])).rejects.toMatchObject({
      code: "PROOFS_OUT_OF_ORDER",
      message: expect.stringMatching(/block 22 with parent 0x1414.*expected block 21 with parent 0x1414/),
    });
    await expect(store.writeBlock(ref(21), hash(19), [])).rejects.toMatchObject({ code: "PROOFS_OUT_OF_ORDER", meta: { expected: `21:0x${"14".repeat(32)}`, got: `21:0x${"13".repeat(32)}` } });
    await expect(store.writeBlock(ref(20), hash(20), [])).rejects.toMatchObject({ code: "PROOFS_OUT_OF_ORDER" });
    await store.writeBlock(ref(21), hash(20), [{ trie: ACCOUNT, path: P, node: bytes(1) }, { trie: ACCOUNT, path: P, node: bytes(2) }]);
    expect(hex(await store.node(ACCOUNT, P, 21n))).toBe("02"); // the last write of a path in a block wins
    expect(store.window()).toEqual({ earliest: ref(20), latest: ref(21) });
    await store.close();
  });

  it("steps back only over the earliest block, and only from what the store holds", async () => {
    const dir = tempDir();
    const store = await ProofsStore.open(dir, CHAIN);
    await store.writeBaseline([{ trie: ACCOUNT, path: P, node: bytes(5) }], bytes(0));
    await store.commitBaseline(ref(5));
    await expect(store.stepBack(6n, ref(5), [])).rejects.toMatchObject({ code: "PROOFS_OUT_OF_ORDER", message: expect.stringMatching(/expected block 5 .* to parent 4/) });
    await expect(store.stepBack(5n, ref(3), [])).rejects.toMatchObject({ code: "PROOFS_OUT_OF_ORDER" });
    await expect(store.stepBack(5n, ref(4), [{ trie: ACCOUNT, path: P, before: null, after: bytes(6) }])).rejects.toMatchObject({
      code: "PROOFS_CORRUPT",
      message: expect.stringMatching(/account-trie path \[123\] at block 5 holds node 0x05, the step back says node 0x06/),
    });
    await expect(store.stepBack(5n, ref(4), [{ trie: ACCOUNT, path: Q, before: null, after: bytes(6) }])).rejects.toMatchObject({ code: "PROOFS_CORRUPT" });
    const twice = { trie: ACCOUNT, path: P, before: null, after: bytes(5) };
    await expect(store.stepBack(5n, ref(4), [twice, twice])).rejects.toMatchObject({ code: "PROOFS_INVALID_INPUT" });
    expect(store.window()).toEqual({ earliest: ref(5), latest: ref(5) });
    await store.stepBack(5n, ref(4), [
      { trie: ACCOUNT, path: P, before: bytes(4), after: bytes(5) },
      { trie: ACCOUNT, path: Q, before: bytes(0x44), after: null },
    ]);
    await store.stepBack(4n, ref(3), [{ trie: ACCOUNT, path: P, before: null, after: bytes(4) }]);
    expect(store.window()).toEqual({ earliest: ref(3), latest: ref(5) });
    const reads = await Promise.all([3n, 4n, 5n].map(async (n) => `${hex(await store.node(ACCOUNT, P, n))}/${hex(await store.node(ACCOUNT, Q, n))}`));
    expect(reads).toEqual(["-/44", "04/44", "05/-"]);
    await store.close();
    expect(await audit(dir)).toEqual([]);
  });

  it("unwinds to a block of its own chain within the window", async () => {
    const { dir, store } = await oneSlotStore(ALICE, P, 1, 5);
    await expect(store.unwindTo(ref(0))).rejects.toMatchObject({ code: "PROOFS_UNWIND_BEYOND_EARLIEST", message: expect.stringMatching(/earliest block is 1, expected a target from 1 to 5/) });
    await expect(store.unwindTo(ref(3, 9))).rejects.toMatchObject({ code: "PROOFS_BLOCK_MISMATCH", meta: { number: "3", storeHash: `0x${"03".repeat(32)}` } });
    await expect(store.unwindTo(ref(6))).rejects.toMatchObject({ code: "PROOFS_OUT_OF_ORDER" });
    await store.unwindTo(ref(5)); // nothing above it
    await store.unwindTo(ref(3));
    expect(store.window()).toEqual({ earliest: ref(1), latest: ref(3) });
    await expect(store.node(ALICE, P, 4n)).rejects.toMatchObject({ code: "PROOFS_OUTSIDE_WINDOW" });
    await store.writeBlock(ref(4, 0x44), hash(3), [{ trie: ALICE, path: Q, node: bytes(0x44) }]);
    expect([hex(await store.node(ALICE, P, 4n)), hex(await store.node(ALICE, Q, 4n)), hex(await store.node(ALICE, Q, 3n))]).toEqual(["03", "44", "-"]);
    await store.unwindTo(ref(1));
    expect(hex(await store.node(ALICE, P, 1n))).toBe("01");
    await store.close();
    expect(await audit(dir)).toEqual([]);
  });

  it("prunes at most maxBlocks, never past the target or the latest", async () => {
    const { dir, store } = await oneSlotStore(BOB, P, 0, 6, 3);
    expect(await store.pruneTo(ref(5), 0)).toBe(0n);
    expect(await store.pruneTo(ref(5), 2)).toBe(2n);
    await expect(store.pruneTo(ref(4, 9), 10)).rejects.toMatchObject({ code: "PROOFS_BLOCK_MISMATCH" });
    expect(store.window().earliest).toEqual(ref(2));
    expect(await store.pruneTo(ref(4), 10)).toBe(4n);
    expect(await store.pruneTo({ number: 99n, hash: hash(99) }, 10)).toBe(6n);
    expect(store.window()).toEqual({ earliest: ref(6), latest: ref(6) });
    expect(hex(await store.node(BOB, P, 6n))).toBe("06");
    await expect(store.pruneTo(ref(6), -1)).rejects.toMatchObject({ code: "PROOFS_INVALID_INPUT" });
    const stats = await store.stats();
    expect(Object.keys(stats.columnFamilies).sort()).toEqual(["account_trie", "change_index", "meta", "storage_trie"]);
    expect(stats.columnFamilies.storage_trie!.estimatedKeys).toBeGreaterThan(0);
    await store.close();
    expect(await audit(dir)).toEqual([]);
    // Only the survivor is left of the path's seven versions, moved to version 0.
    const { db, cf } = await rawReadOnly(dir);
    const prefix = nodePrefix(BOB, P);
    const left = await allEntries(cf(PROOFS_COLUMN_FAMILIES.storage), { gte: nodeKey(prefix, 2n ** 64n - 1n), lte: nodeKey(prefix, 0n) });
    expect(left.map((e) => `${keyVersion(e.key)}:${hex(e.value)}`)).toEqual(["0:06"]);
    expect(await cf(PROOFS_COLUMN_FAMILIES.changes).get(changeIndexKey(6n))).toBeNull();
    await db.close();
  });
});

describe("ProofsStore: reads racing writes", () => {
  it("reads racing an unwind, a prune and a new block return their block's node or refuse, never another block's", async () => {
    const { store } = await oneSlotStore(ACCOUNT, P, 0, 10);
    const forked = ref(6, 0x66);
    const answers = (n: number): string[] => (n === 6 ? ["06", "66"] : [hex(bytes(n))]);
    for (let round = 0; round < 5; round++) {
      let writing = true;
      const writes = Promise.all([store.unwindTo(ref(5)), store.pruneTo(ref(round + 1), 1), store.writeBlock(forked, hash(5), [{ trie: ACCOUNT, path: P, node: bytes(0x66) }])]).finally(
        () => (writing = false),
      );
      // Reads of every block, again and again until the writes are done.
      const reads: Promise<{ n: number; got: string }>[] = [];
      while (writing) {
        const wave = Array.from({ length: 11 }, (_, n) =>
          store.node(ACCOUNT, P, BigInt(n)).then(
            (node) => ({ n, got: hex(node) }),
            (e: { code: string }) => ({ n, got: e.code }),
          ),
        );
        reads.push(...wave);
        await Promise.all(wave);
        // Reads the version cache answers settle without I/O: let the writes' I/O callbacks run, as
        // requests arriving as events do.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await writes;
      for (const { n, got } of await Promise.all(reads)) expect([...answers(n), "PROOFS_OUTSIDE_WINDOW"], `block ${n}`).toContain(got);
      expect(hex(await store.node(ACCOUNT, P, 6n))).toBe("66");
      expect(store.window().earliest).toEqual(ref(round + 1));
      // Back to ten blocks for the next round.
      await store.unwindTo(ref(5));
      await writeBlocks(store, ACCOUNT, P, 6, 10);
    }
    await store.close();
  });
});

describe("ProofsStore: the newest-version cache", () => {
  it("forgets what an unwind removed: a path the new branch does not write reads its older version", async () => {
    const { store } = await oneSlotStore(ACCOUNT, P, 0, 3);
    await store.writeBlock(ref(4), hash(3), [{ trie: ACCOUNT, path: Q, node: bytes(0x44) }]);
    await store.writeBlock(ref(5), hash(4), [{ trie: ACCOUNT, path: P, node: bytes(0x55) }]);
    expect(hex(await store.node(ACCOUNT, P, 5n))).toBe("55");
    // Block 5 replaced by a block that writes Q only: P at the new 5 is block 3's version.
    await store.unwindTo(ref(4));
    await store.writeBlock(ref(5, 0x50), hash(4), [{ trie: ACCOUNT, path: Q, node: bytes(0x50) }]);
    expect(hex(await store.node(ACCOUNT, P, 5n))).toBe("03");
    expect(hex(await store.node(ACCOUNT, Q, 5n))).toBe("50");
    await store.close();
  });

  it("forgets what a step back moved: the baseline's path reads its own version below the block", async () => {
    const { store } = await oneSlotStore(ACCOUNT, P, 5, 5);
    expect(hex(await store.node(ACCOUNT, P, 5n))).toBe("05");
    await store.stepBack(5n, ref(4), [{ trie: ACCOUNT, path: P, before: bytes(0x04), after: bytes(5) }]);
    expect(hex(await store.node(ACCOUNT, P, 4n))).toBe("04");
    expect(hex(await store.node(ACCOUNT, P, 5n))).toBe("05");
    await store.close();
  });
});

describe("ProofsStore: random operations against a reference model", () => {
  const sizes: Omit<ModelOptions, "seed"> = { slots: 24, maxChanges: 6, maxNodeBytes: 40, baseline: 30n, maxWindow: 14 };

  it.each([1, 2, 3])("seed %i: every read at every block of the window after every operation", async (seed) => {
    const dir = tempDir();
    const model = new ChainModel({ ...sizes, seed });
    let store = await baselineStore(dir, model);
    const kinds = new Map<string, number>();
    for (let i = 0; i < 120; i++) {
      const op = model.next();
      kinds.set(op.kind, (kinds.get(op.kind) ?? 0) + 1);
      await runOp(store, model.slots, op);
      expect(windowShape(store), `window after op ${i} (${op.kind})`).toEqual(model.current());
      await expectReads(store, model, model.current());
      if (i % 30 === 29) {
        await store.close();
        expect(await audit(dir)).toEqual([]);
        store = await ProofsStore.open(dir, CHAIN);
        expect(windowShape(store)).toEqual(model.current());
        await expectReads(store, model, model.current());
      }
    }
    // Every kind of operation ran, several times.
    for (const kind of ["block", "stepBack", "unwind", "prune"]) expect(kinds.get(kind) ?? 0, kind).toBeGreaterThan(5);
    await store.close();
  });
});

describe("ProofsStore: killed in the middle of writing", () => {
  /** The child (crashChild.ts) runs TypeScript through Vite's module runner (Vite is vitest's own). */
  const childFile = fileURLToPath(new URL("./crashChild.ts", import.meta.url));
  const childScript = `import("vite").then(({ runnerImport }) => runnerImport(${JSON.stringify(childFile)})).catch((e) => { console.error(e); process.exit(1); })`;

  /** Runs the child until it kills itself at write batch `killAt`: how it ended and what it printed. */
  const runChild = (inputFile: string, killAt: number): Promise<{ signal: NodeJS.Signals | null; code: number | null; output: string }> =>
    new Promise((resolve, reject) => {
      const env = { ...process.env, PROOFS_CRASH_INPUT: inputFile, PROOFS_CRASH_AT_BATCH: String(killAt) };
      const child = spawn(process.execPath, ["-e", childScript], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
      child.on("error", reject);
      child.on("close", (code, signal) => resolve({ code, signal, output }));
    });

  // Which write batch the child dies at: one inside an operation of the kind named (the model
  // numbers batches: window i is the one batch i leaves).
  it.each([
    [11, "unwind", "the second block of an unwind of 3 blocks or more"],
    [12, "prune", "a prune"],
    [13, "stepBack", "a step back"],
    [14, "block", "a forward block"],
    [15, "unwind", "the second block of an unwind of 3 blocks or more"],
  ] as const)("seed %i, killed at a batch of %s: the store reopens with the window before or after it, and its data", async (seed, kind, what) => {
    const dir = tempDir();
    // Large blocks: a prune seeks hundreds of paths, an unwind deletes hundreds of versions per block.
    const model = new ChainModel({ seed, slots: 600, maxChanges: 300, maxNodeBytes: 120, baseline: 60n, maxWindow: 12 });
    await (await baselineStore(dir, model)).close();
    const ops = Array.from({ length: 60 }, () => model.next());
    const first = ops.findIndex((op, i) => i >= 5 && op.kind === kind && (kind !== "unwind" || model.windowAfterOp[i]! - model.windowAfterOp[i - 1]! >= 3));
    expect(first, `${what} in the sequence`).toBeGreaterThan(0);
    const killAt = model.windowAfterOp[first - 1]! + (kind === "unwind" ? 2 : 1);
    const inputFile = path.join(path.dirname(dir), "input.json");
    const input: CrashInput = { dir, chainId: CHAIN.chainId, genesisHash: CHAIN.genesisHash, slots: model.slots, ops };
    writeFileSync(inputFile, toJson(input));

    const run = await runChild(inputFile, killAt);
    expect({ signal: run.signal, output: run.output }).toEqual({ signal: "SIGKILL", output: "" });

    const store = await ProofsStore.open(dir, CHAIN);
    const reopened = windowShape(store);
    expect([model.windows[killAt - 1], model.windows[killAt]]).toContainEqual(reopened);
    // Its data: every slot at both ends and the middle of the window, and the on-disk invariants.
    const e = BigInt(reopened.earliest.split(":")[0]!);
    const l = BigInt(reopened.latest.split(":")[0]!);
    await expectReads(store, model, reopened, [...new Set([e, (e + l) / 2n, l])]);
    await store.close();
    expect(await audit(dir)).toEqual([]);
    // And the store takes the next block.
    const again = await ProofsStore.open(dir, CHAIN);
    const latest = again.window().latest!;
    await again.writeBlock({ number: latest.number + 1n, hash: hash(0xee) }, latest.hash, [{ trie: ACCOUNT, path: P, node: bytes(0xee) }]);
    expect(hex(await again.node(ACCOUNT, P, latest.number + 1n))).toBe("ee");
    await again.close();
  });
});
