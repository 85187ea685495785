/**
 * A head change deeper than the kept state history (`--history.blocks`, no archive) is refused
 * before anything moves, naming the history it needs; one within the history unwinds; a state
 * below the history is refused the same way for reads.
 */
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-deepreorg-");


describe("reorgs deeper than the state history", () => {
  it("refuses to unwind below the history floor and leaves the head, unwinds above it", async () => {
    const dir = tmp();
    await Chain.init(dir, devnetGenesis(), { archive: false });
    const chain = Chain.open(dir, { archive: false, historyBlocks: 4, logger: pino({ level: "silent" }) });
    try {
      const seq = new OpDevSequencer(chain, new TxPool(chain), 0, pino({ level: "silent" }));
      while (chain.head.header.number < 40n) await seq.sealOne();
      const floor = chain.store.historyFloor();
      expect(floor).toBeGreaterThan(10n);
      const deep = chain.getCanonicalHash(5n)!;
      await expect(chain.setHead(deep)).rejects.toThrow(expect.objectContaining({ code: "CHAIN_REORG_TOO_DEEP" }));
      await expect(chain.setHead(deep)).rejects.toThrow(/--history\.blocks 4/);
      expect(chain.head.header.number).toBe(40n);
      expect(chain.store.historyFloor()).toBe(floor);
      expect(() => chain.revertedTries(chain.getHeaderByHash(deep)!)).toThrow(expect.objectContaining({ code: "STORAGE_HISTORY_PRUNED" }));
      // Within the history: unwinds, and the chain goes on from there.
      await chain.setHead(chain.getCanonicalHash(38n)!);
      expect(chain.head.header.number).toBe(38n);
      await seq.sealOne();
      expect(chain.head.header.number).toBe(39n);
    } finally {
      await chain.close();
    }
  });
});
