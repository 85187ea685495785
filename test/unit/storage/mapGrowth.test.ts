/**
 * The chain store's memory map is not a size limit: a store opened with a 1 MiB map takes a
 * state many times larger, and a reader opened before the growth (in the same process, as the
 * execution pool's threads are) sees all of it.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bulkLoadState, verifyState } from "../../../src/storage/bulkLoad.js";
import { ChainStore } from "../../../src/storage/store.js";
import { syntheticAccounts } from "./syntheticState.js";
import { waitUntil } from "../../helpers/poll.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-mapgrow-");


describe("LMDB map growth", () => {
  it("writes far past the initial map, and an earlier reader sees it all", async () => {
    const dir = tmp();
    const initial = 1024 * 1024;
    const store = ChainStore.open(dir, { mapBytes: initial });
    const reader = ChainStore.open(dir, { readOnly: true, mapBytes: initial });
    try {
      const loaded = bulkLoadState(store, syntheticAccounts(60_000));
      expect(statSync(path.join(dir, "chain", "data.mdb")).size).toBeGreaterThan(4 * initial);
      expect(verifyState(store, loaded.stateRoot).problems).toEqual([]);
      // A reader's snapshot is renewed once lmdb-js resets its read transaction, which it does on a
      // setTimeout(0) task (as between a worker's requests); the reader has read at open (its meta),
      // so it holds a snapshot from before the writes until then.
      const rootHex = Buffer.from(loaded.stateRoot).toString("hex");
      await waitUntil("the reader's snapshot renewed", 5_000, () => Buffer.from(reader.getStateRoot() ?? new Uint8Array()).toString("hex") === rootHex, 0);
      expect(verifyState(reader, loaded.stateRoot).problems).toEqual([]);
      expect(Buffer.from(reader.getStateRoot()!).toString("hex")).toBe(Buffer.from(loaded.stateRoot).toString("hex"));
    } finally {
      await reader.close();
      await store.close();
    }
  });
});
