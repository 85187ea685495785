/**
 * A read-only replica of the chain (the flashblocks worker's) following the writer's head:
 * `refreshHeadHeader` sees each new head without decoding its transactions, `head` decodes the
 * same block on first use, and `transactionHashesOf` gives the block's transaction hashes from
 * the stored body bytes (deposits and user transactions alike).
 */
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { devAccounts, devnetGenesis } from "../../../src/chain/devnet.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";

const silent = pino({ level: "silent" });
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("chain head on a read-only replica", () => {
  it("follows the writer's head by header, and hashes stored transactions from the body bytes", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "basalt-headreplica-"));
    dirs.push(dir);
    await Chain.init(dir, devnetGenesis(), { archive: true });
    const writer = Chain.open(dir, { logger: silent });
    const replica = Chain.open(dir, { readOnly: true, logger: silent });
    try {
      const pool = new TxPool(writer);
      const seq = new OpDevSequencer(writer, pool, 0, silent);
      const [a, b] = devAccounts();
      for (let nonce = 0n; nonce < 3n; nonce++) {
        const tx = createFeeMarket1559Tx(
          { chainId: writer.chainId, nonce, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 21_000n, to: hexToBytes(b!.address as `0x${string}`), value: 1n },
          { common: writer.commonAt(1n, writer.head.header.timestamp + 1n) },
        ).sign(hexToBytes(a!.privateKey as `0x${string}`));
        await pool.addRaw(tx.serialize());
      }
      await seq.sealOne();
      const sealed = writer.head;
      expect(sealed.transactions.length).toBe(4); // the L1-info deposit and three transfers

      expect(replica.headHeader.number).toBe(0n);
      const seen = replica.refreshHeadHeader();
      expect(seen.header.number).toBe(sealed.header.number);
      expect(bytesToHex(seen.hash)).toBe(bytesToHex(sealed.hash()));
      expect(bytesToHex(replica.headHash)).toBe(bytesToHex(sealed.hash()));
      expect(replica.transactionHashesOf(seen.hash)!.map(bytesToHex)).toEqual(sealed.transactions.map((t) => bytesToHex(t.hash())));
      // The block itself, decoded on demand, is the writer's.
      expect(bytesToHex(replica.head.hash())).toBe(bytesToHex(sealed.hash()));
      expect(replica.head.transactions.length).toBe(4);
      expect(replica.transactionHashesOf(new Uint8Array(32))).toBeUndefined();
    } finally {
      await replica.close();
      await writer.close();
    }
  });
});
