/**
 * The proofs store's dump (`src/proofs/dump.ts`, what `basalt snapshot` carries): a store dumped
 * from a read-only open and restored into a new directory holds the same entries, window and
 * reads, however the dump's bytes are split on the way; a dump cut short or with a bad record is
 * refused as corrupt; a read-write store is not dumped.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { restoreDump, writeDump } from "../../../src/proofs/dump.js";
import { ProofsStore, type ProofsStoreOptions } from "../../../src/proofs/store.js";
import type { BlockRef, TrieRef } from "../../../src/proofs/types.js";

const work = mkdtempSync(path.join(os.tmpdir(), "basalt-proofs-dump-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let stores = 0;

/** A new directory for one store, under the file's temporary directory. */
function tempDir(): string {
  return path.join(work, `proofs-${stores++}`);
}

const CHAIN: ProofsStoreOptions = { chainId: 8453n, genesisHash: new Uint8Array(32).fill(0xaa) };
const ACCOUNT: TrieRef = { kind: "account" };
const ALICE: TrieRef = { kind: "storage", hashedAddress: new Uint8Array(32).fill(1) };
const hash = (n: number): Uint8Array => new Uint8Array(32).fill(n);
const ref = (n: number): BlockRef => ({ number: BigInt(n), hash: hash(n) });
const node = (n: number, size = 40): Uint8Array => new Uint8Array(size).fill(n);
const PATHS = [Uint8Array.of(), Uint8Array.of(1), Uint8Array.of(1, 2), Uint8Array.of(3, 4, 5)];

/** A store with a baseline at block 10 and blocks 11–16 writing, replacing and removing nodes. */
async function sampleStore(): Promise<string> {
  const dir = tempDir();
  const store = await ProofsStore.open(dir, CHAIN);
  await store.writeBaseline(
    PATHS.flatMap((p, i) => [
      { trie: ACCOUNT, path: p, node: node(i + 1) },
      { trie: ALICE, path: p, node: node(i + 0x41, 600) },
    ]),
    Uint8Array.of(9),
  );
  await store.commitBaseline(ref(10));
  for (let b = 11; b <= 16; b++) {
    const p = PATHS[b % PATHS.length]!;
    await store.writeBlock(ref(b), hash(b - 1), [
      { trie: ACCOUNT, path: p, node: b % 3 === 0 ? null : node(b) },
      { trie: ALICE, path: p, node: node(b + 0x80, 300) },
    ]);
  }
  await store.close();
  return dir;
}

/** Every entry of the store at `dir` (read-only open) as hex, per column family. */
async function entriesOf(dir: string): Promise<string[]> {
  const store = await ProofsStore.open(dir, { ...CHAIN, readOnly: true });
  try {
    const out: string[] = [];
    for await (const e of store.entries()) out.push(`${e.family}:${e.key.toString("hex")}=${e.value.toString("hex")}`);
    return out;
  } finally {
    await store.close();
  }
}

/** The dump of the store at `dir`, as one buffer. */
async function dumpOf(dir: string): Promise<{ bytes: Buffer; counts: Record<string, number> }> {
  const store = await ProofsStore.open(dir, { ...CHAIN, readOnly: true });
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on("data", (c: Buffer) => chunks.push(c));
  try {
    const counts = await writeDump(store, sink);
    return { bytes: Buffer.concat(chunks), counts };
  } finally {
    await store.close();
  }
}

/** `bytes` as a stream of chunks of `size` bytes. */
function chunked(bytes: Buffer, size: number): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
}

describe("proofs store dump", () => {
  it("restores the same entries, window and reads, whatever the chunking", async () => {
    const source = await sampleStore();
    const want = await entriesOf(source);
    const { bytes, counts } = await dumpOf(source);
    expect(counts).toEqual({ account_trie: want.filter((e) => e.startsWith("account_trie:")).length, storage_trie: expect.any(Number), change_index: 6, meta: 5 });
    expect(Object.values(counts).reduce((a, b) => a + b)).toBe(want.length);
    for (const size of [bytes.length, 7, 1]) {
      const copy = tempDir();
      expect(await restoreDump(chunked(bytes, size), copy)).toEqual(counts);
      expect(await entriesOf(copy)).toEqual(want);
      const store = await ProofsStore.open(copy, CHAIN);
      try {
        expect(store.window()).toEqual({ earliest: ref(10), latest: ref(16) });
        for (const n of [10n, 13n, 16n]) {
          for (const p of PATHS) expect(await store.node(ACCOUNT, p, n)).toEqual(await readAt(source, p, n));
        }
      } finally {
        await store.close();
      }
    }
  });

  it("refuses a dump cut short, one with a bad column family or trailing bytes, as corrupt", async () => {
    const { bytes } = await dumpOf(await sampleStore());
    await expect(restoreDump(chunked(bytes.subarray(0, bytes.length - 1), 64), tempDir())).rejects.toMatchObject({
      code: "PROOFS_CORRUPT",
      message: expect.stringMatching(/the dump ends without its end byte: it was cut short/),
    });
    await expect(restoreDump(chunked(bytes.subarray(0, 100), 64), tempDir())).rejects.toMatchObject({ code: "PROOFS_CORRUPT", message: expect.stringMatching(/cut short/) });
    const bad = Buffer.from(bytes);
    bad[0] = 7;
    await expect(restoreDump(chunked(bad, 64), tempDir())).rejects.toMatchObject({ code: "PROOFS_CORRUPT", message: expect.stringMatching(/names column family 7, expected 0 to 3/) });
    await expect(restoreDump(chunked(Buffer.concat([bytes, Buffer.of(0)]), 64), tempDir())).rejects.toMatchObject({
      code: "PROOFS_CORRUPT",
      message: expect.stringMatching(/bytes after its end/),
    });
  });

  it("dumps only a read-only open, whose window is that of the entries", async () => {
    const store = await ProofsStore.open(await sampleStore(), CHAIN);
    try {
      await expect(writeDump(store, new PassThrough())).rejects.toMatchObject({ code: "PROOFS_INVALID_INPUT" });
    } finally {
      await store.close();
    }
  });
});

/** The node at `p` of the account trie at block `n` in the store at `dir`. */
async function readAt(dir: string, p: Uint8Array, n: bigint): Promise<Uint8Array | undefined> {
  const store = await ProofsStore.open(dir, { ...CHAIN, readOnly: true });
  try {
    return await store.node(ACCOUNT, p, n);
  } finally {
    await store.close();
  }
}
