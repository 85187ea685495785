/**
 * The chain store's readahead setting: `readAhead: false` maps the store with LMDB's
 * MDB_NORDAHEAD (what the node does unless `--db.read-ahead`), and the state reads back the same;
 * the default keeps the kernel's readahead (sequential work: bulk load, verification, export).
 */
import { describe, expect, it } from "vitest";
import { bulkLoadState, verifyState } from "../../../src/storage/bulkLoad.js";
import { ChainStore } from "../../../src/storage/store.js";
import { syntheticAccounts } from "./syntheticState.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-readahead-");

/** Whether lmdb-js opened the environment with noReadAhead. */
const noReadAhead = (s: ChainStore): boolean => (s.root as unknown as { noReadAhead?: boolean }).noReadAhead === true;

describe("chain store readahead", () => {
  it("readAhead false opens with MDB_NORDAHEAD and reads the same state; the default keeps readahead", async () => {
    const dir = tmp();
    const writer = ChainStore.open(dir);
    const loaded = bulkLoadState(writer, syntheticAccounts(5_000));
    expect(noReadAhead(writer)).toBe(false);
    await writer.close();
    const store = ChainStore.open(dir, { readAhead: false });
    try {
      expect(noReadAhead(store)).toBe(true);
      expect(verifyState(store, loaded.stateRoot).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
