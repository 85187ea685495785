/**
 * The trie path cache keeps what commits wrote: the second of two blocks touching the same
 * accounts finds the account trie's upper levels in the cache (they were written by the first
 * block, so reading them back from the store would miss by hash), and the roots stay right
 * (every block is checked against a fresh import of the same blocks).
 */
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { decodeBlockFromRlp } from "../../../src/chain/blockCodec.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { trieReadsTotal } from "../../../src/storage/stateMetrics.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { buildWorkload } from "../../../bench/workload/workload.js";
import { tempDirs } from "../../helpers/tempDirs.js";

const tmp = tempDirs("basalt-triecache-");

const silent = pino({ level: "silent" });
async function cacheHits(): Promise<number> {
  return (await trieReadsTotal.get()).values.find((v) => v.labels.source === "cache")?.value ?? 0;
}

describe("trie path cache", () => {
  it("answers the next block's upper levels from what the previous commit wrote", async () => {
    const dir = tmp();
    await Chain.init(dir, devnetGenesis());
    const chain = Chain.open(dir, { logger: silent });
    const pool = new TxPool(chain);
    const seq = new OpDevSequencer(chain, pool, 0, silent);
    const w = buildWorkload({ chainId: chain.chainId, blocks: 3, txsPerBlock: 20, mix: { transfers: 1, erc20: 0, swaps: 0 } });
    for (const round of [...w.setup, ...w.blocks.slice(0, 2)]) {
      for (const raw of round) await pool.addRaw(raw);
      await seq.sealOne();
    }
    const before = await cacheHits();
    for (const raw of w.blocks[2]!) await pool.addRaw(raw);
    await seq.sealOne();
    expect((await cacheHits()) - before).toBeGreaterThan(0);
    const rlps: Uint8Array[] = [];
    for (let n = 1n; n <= chain.head.header.number; n++) rlps.push(chain.getBlockByNumber(n)!.serialize());
    await chain.close();

    // The same blocks imported elsewhere: every header root checked by the import.
    const other = tmp();
    await Chain.init(other, devnetGenesis());
    const replica = Chain.open(other, { logger: silent });
    try {
      for (const rlp of rlps) await replica.importBlock(decodeBlockFromRlp(replica, rlp));
      expect(replica.head.header.number).toBe(BigInt(rlps.length));
    } finally {
      await replica.close();
    }
  });
});
