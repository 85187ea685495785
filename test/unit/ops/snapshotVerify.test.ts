/**
 * `basalt snapshot import` checks the whole imported state, not only its root: a snapshot of a
 * datadir whose state is damaged below the root (one storage trie record altered, so the file's
 * checksums and the head's state root are intact) is refused; the undamaged one imports.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { exportChainSnapshot, importChainSnapshot } from "../../../src/ops/snapshot.js";
import { ChainStore } from "../../../src/storage/store.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-snapverify-");

describe("snapshot import verifies the state", () => {
  it("imports an intact datadir and refuses one with a damaged storage trie", async () => {
    const source = tmp();
    await Chain.init(source, devnetGenesis());
    const good = path.join(tmp(), "good.snapshot");
    await exportChainSnapshot(source, good);
    const intact = path.join(tmp(), "intact");
    await importChainSnapshot(good, intact);

    const store = ChainStore.open(source);
    try {
      const [first] = [...store.storageTrie.getRange({ limit: 1 })];
      expect(first).toBeDefined();
      const damaged = Buffer.from(first!.value);
      damaged[damaged.length - 1] ^= 0xff;
      store.root.transactionSync(() => store.storageTrie.put(Buffer.from(first!.key), damaged));
    } finally {
      await store.close();
    }
    const bad = path.join(tmp(), "bad.snapshot");
    await exportChainSnapshot(source, bad);
    await expect(importChainSnapshot(bad, path.join(tmp(), "refused"))).rejects.toThrow(
      expect.objectContaining({ code: "SNAPSHOT_VERIFY_FAILED", message: expect.stringContaining("does not verify") as unknown as string }),
    );
  });
});
