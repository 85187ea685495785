/**
 * The chain store's memory map is not a size limit: a store opened with a 1 MiB map takes a
 * state many times larger, and a reader opened before the growth (in the same process, as the
 * execution pool's threads are) sees all of it.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bulkLoadState, verifyState, type BulkAccount } from "../../../src/storage/bulkLoad.js";
import { ChainStore } from "../../../src/storage/store.js";
import { keccak256 } from "../../../src/util/keccak.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function* accounts(n: number): Generator<BulkAccount> {
  const keys: Uint8Array[] = [];
  for (let i = 0; i < n; i++) keys.push(keccak256(Buffer.from(`account ${i}`)));
  keys.sort((a, b) => Buffer.compare(a, b));
  for (const [i, hashedAddress] of keys.entries()) {
    yield {
      hashedAddress,
      nonce: BigInt(i % 7),
      balance: BigInt(i) * 10n ** 15n + 1n,
      ...(i % 10 === 0 ? { storage: [0, 1, 2].map((s) => keccak256(Buffer.from(`slot ${i} ${s}`))).sort((a, b) => Buffer.compare(a, b)).map((hashedSlot) => ({ hashedSlot, value: Uint8Array.of(1 + (i % 200)) })) } : {}),
    };
  }
}

describe("LMDB map growth", () => {
  it("writes far past the initial map, and an earlier reader sees it all", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-mapgrow-"));
    dirs.push(dir);
    const initial = 1024 * 1024;
    const store = ChainStore.open(dir, { mapBytes: initial });
    const reader = ChainStore.open(dir, { readOnly: true, mapBytes: initial });
    try {
      const loaded = bulkLoadState(store, accounts(60_000));
      expect(statSync(path.join(dir, "chain", "data.mdb")).size).toBeGreaterThan(4 * initial);
      expect(verifyState(store, loaded.stateRoot).problems).toEqual([]);
      // A reader's snapshot is renewed on its next turn of the event loop (as a worker's request is).
      await new Promise((r) => setImmediate(r));
      expect(verifyState(reader, loaded.stateRoot).problems).toEqual([]);
      expect(Buffer.from(reader.getStateRoot()!).toString("hex")).toBe(Buffer.from(loaded.stateRoot).toString("hex"));
    } finally {
      await reader.close();
      await store.close();
    }
  });
});
