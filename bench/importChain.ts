/**
 * Bench: import speed of a concatenated RLP chain (default: the execution-apis Prague
 * chain.rlp). Prints blocks/s, Mgas/s and transactions/s of execution + commit.
 *
 * Usage: node dist/bench/importChain.js [chain.rlp] [genesis.json]
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Chain } from "../src/blockchain/chain.js";
import { decodeBlockFromRlp } from "../src/chain/blockCodec.js";
import { splitRlpItems } from "../src/chain/rlpFile.js";
import { sharedFixture } from "./fixtures.js";

async function main(): Promise<void> {
  const rlpPath = process.argv[2] ?? sharedFixture("execution-apis/prague/chain.rlp");
  const genesisPath = process.argv[3] ?? sharedFixture("execution-apis/prague/genesis.json");
  const datadir = mkdtempSync(join(tmpdir(), "basalt-bench-import-"));
  try {
    await Chain.init(datadir, JSON.parse(readFileSync(genesisPath, "utf8")), { archive: true });
    const chain = Chain.open(datadir);
    const items = [...splitRlpItems(readFileSync(rlpPath))];
    let gas = 0n;
    let txs = 0;
    const t0 = performance.now();
    for (const { bytes } of items) {
      const block = decodeBlockFromRlp(chain, bytes);
      const ex = await chain.importBlock(block);
      gas += ex.gasUsed;
      txs += block.transactions.length;
    }
    const s = (performance.now() - t0) / 1000;
    console.log(
      JSON.stringify({
        bench: "import",
        file: rlpPath,
        blocks: items.length,
        transactions: txs,
        gasUsed: gas.toString(),
        seconds: Number(s.toFixed(3)),
        blocksPerSecond: Number((items.length / s).toFixed(1)),
        mgasPerSecond: Number((Number(gas) / 1e6 / s).toFixed(2)),
        txPerSecond: Number((txs / s).toFixed(1)),
      }),
    );
    await chain.close();
  } finally {
    rmSync(datadir, { recursive: true, force: true });
  }
}

await main();
