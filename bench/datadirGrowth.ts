/**
 * Bench: how much the datadir grows per block when the state does not — issue 25's devnet case.
 * The devnet sequencer in-process, archive off, `--history.blocks 16`; blocks of 40 ERC-20
 * transfers among a fixed set of holders (bench/workload, `erc20` only: 20 senders, 4 tokens),
 * so every block rewrites existing balances and creates nothing. After a warm-up long enough for
 * history pruning to run several times, the growth over the measured blocks is read three ways:
 * - LMDB's high-water mark (`lastPageNumber` × page size): what the file grows by;
 * - the file's allocated bytes (`st_blocks` × 512);
 * - pages in use per sub-database (branch + leaf + overflow pages of `getStats()`), to show where
 *   the bytes go, beside the block's own data (header, body, receipts, indexes).
 * Freed pages are reused by LMDB, so a layout that only overwrites grows by its block data alone.
 *
 * Usage: node dist/bench/datadirGrowth.js [measuredBlocks=200] [warmupBlocks=64] [txsPerBlock=40]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Chain } from "../src/blockchain/chain.js";
import { devnetGenesis } from "../src/chain/devnet.js";
import { OpDevSequencer } from "../src/sequencer/opDevSequencer.js";
import type { ChainStore } from "../src/storage/store.js";
import { TxPool } from "../src/txpool/txpool.js";
import { buildWorkload } from "./workload/workload.js";

const HISTORY_BLOCKS = 16;
const TABLES = ["headers", "bodies", "senders", "receipts", "canonical", "txIndex", "hashedAccounts", "hashedStorage", "accountTrie", "storageTrie", "accountHistory", "storageHistory", "changeSets", "code"] as const;

interface Reading {
  highWater: number;
  allocated: number;
  pages: Record<string, number>;
}

function read(store: ChainStore, file: string): Reading {
  const env = store.root.getStats() as { lastPageNumber: number; pageSize: number };
  const pages: Record<string, number> = {};
  for (const t of TABLES) {
    const s = store[t].getStats() as { treeBranchPageCount: number; treeLeafPageCount: number; overflowPages: number };
    pages[t] = s.treeBranchPageCount + s.treeLeafPageCount + s.overflowPages;
  }
  return { highWater: env.lastPageNumber * env.pageSize, allocated: statSync(file).blocks * 512, pages };
}

async function main(): Promise<void> {
  const [measured = 200, warmup = 64, perBlock = 40] = process.argv.slice(2).map(Number);
  const dir = mkdtempSync(join(tmpdir(), "basalt-bench-growth-"));
  const silent = pino({ level: "silent" });
  try {
    await Chain.init(dir, devnetGenesis(), { archive: false });
    const chain = Chain.open(dir, { archive: false, historyBlocks: HISTORY_BLOCKS, logger: silent });
    const pool = new TxPool(chain);
    const seq = new OpDevSequencer(chain, pool, 0, silent);
    const w = buildWorkload({ chainId: chain.chainId, blocks: warmup + measured, txsPerBlock: perBlock, mix: { transfers: 0, erc20: 1, swaps: 0 } });
    for (const round of w.setup) {
      for (const raw of round) await pool.addRaw(raw);
      await seq.sealOne();
    }
    const file = join(dir, "chain", "data.mdb");
    const pageSize = (chain.store.root.getStats() as { pageSize: number }).pageSize;
    let before: Reading | undefined;
    let blockBytes = 0;
    for (const [i, round] of w.blocks.entries()) {
      if (i === warmup) before = read(chain.store, file);
      for (const raw of round) await pool.addRaw(raw);
      await seq.sealOne();
      if (i >= warmup) {
        const hash = chain.head.hash();
        blockBytes += (chain.store.getHeaderRlp(hash)?.length ?? 0) + (chain.store.getBodyRlp(hash)?.length ?? 0) + (chain.store.receipts.get(Buffer.from(hash))?.length ?? 0) + 20 * round.length + 36 * round.length + 40;
      }
    }
    const after = read(chain.store, file);
    const b = before!;
    const transfers = measured * perBlock;
    const perBlockBytes = (after.highWater - b.highWater) / measured;
    console.log(`datadir growth, archive off, --history.blocks ${HISTORY_BLOCKS}: ${measured} blocks of ${perBlock} ERC-20 transfers among fixed holders, after ${warmup} warm-up blocks`);
    console.log(`  high-water mark: ${Math.round(perBlockBytes)} B per block, ${Math.round(perBlockBytes / perBlock)} B per transfer`);
    console.log(`  file allocated:  ${Math.round((after.allocated - b.allocated) / measured)} B per block`);
    console.log(`  the blocks' own data (header, body, receipts, senders, tx index entries): ${Math.round(blockBytes / measured)} B per block, ${Math.round(blockBytes / transfers)} B per transfer`);
    console.log(`  pages in use per table, change over the run (page = ${pageSize} B):`);
    for (const t of TABLES) {
      const d = after.pages[t]! - b.pages[t]!;
      if (d !== 0) console.log(`    ${t.padEnd(15)} ${d > 0 ? "+" : ""}${d} pages (${Math.round((d * pageSize) / measured)} B per block)`);
    }
    await chain.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
