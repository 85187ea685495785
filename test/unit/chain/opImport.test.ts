/**
 * Import of OP blocks (the `basalt import` / newPayload path): blocks sealed by the devnet
 * sequencer re-import on a fresh datadir, and bad OP blocks are rejected with the block
 * number and the reason — a first transaction that is not the L1-attributes deposit, an
 * L1-attributes deposit with a bad source hash, a malformed deposit encoding.
 */
import { Block, createBlockHeader } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { Address, hexToBytes } from "@ethereumjs/util";
import { createFeeMarket1559Tx } from "@ethereumjs/tx";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { encodeBody } from "../../../src/chain/blockCodec.js";
import { decodeBlockFromRlp } from "../../../src/chain/blockCodec.js";
import { devAccounts, devnetGenesis } from "../../../src/chain/devnet.js";
import { DepositTransaction } from "../../../src/chain/op/depositTx.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";

const silent = pino({ level: "silent" });
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(path.join(os.tmpdir(), "basalt-opimport-"));
  dirs.push(d);
  return d;
};

/** Re-seals `txs` under `template`'s header with a matching transactions root. */
async function reseal(template: Block, txs: unknown[]): Promise<Block> {
  const opts = { common: template.common, skipConsensusFormatValidation: true };
  const draft = new Block(template.header, txs as never, [], template.withdrawals, opts);
  const header = createBlockHeader({ ...template.header.toJSON(), transactionsTrie: await draft.genTxTrie() } as never, opts);
  return new Block(header, txs as never, [], template.withdrawals, opts);
}

function blockRlp(b: Block): Uint8Array {
  return RLP.encode([RLP.decode(b.header.serialize()), ...(RLP.decode(encodeBody(b)) as unknown[])] as never);
}

describe("OP block import", () => {
  let source: Chain;
  let sealed: Block[] = [];

  beforeAll(async () => {
    const dir = tmp();
    await Chain.init(dir, devnetGenesis(), { archive: true });
    source = Chain.open(dir, { logger: silent });
    const pool = new TxPool(source);
    const seq = new OpDevSequencer(source, pool, 0, silent);
    const a = devAccounts();
    const tx = createFeeMarket1559Tx(
      { chainId: source.chainId, nonce: 0n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 6n, gasLimit: 21_000n, to: a[1]!.address as `0x${string}`, value: 5n },
      { common: source.commonAt(1n, source.head.header.timestamp + 1n) },
    ).sign(hexToBytes(a[0]!.privateKey as `0x${string}`));
    await pool.addRaw(tx.serialize());
    seq.injectDeposit({ from: new Uint8Array(20).fill(0xaa), to: hexToBytes(a[2]!.address as `0x${string}`), mint: 10n ** 18n, value: 1n, gasLimit: 50_000n, data: new Uint8Array(0) });
    await seq.sealOne();
    await seq.sealOne();
    sealed = [source.getBlockByNumber(1n)!, source.getBlockByNumber(2n)!];
    expect(sealed[0]!.transactions.length).toBe(3); // L1 info, user deposit, transfer
  });

  afterAll(async () => {
    await source?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const freshChain = async (): Promise<Chain> => {
    const dir = tmp();
    await Chain.init(dir, devnetGenesis(), { archive: true });
    return Chain.open(dir, { logger: silent });
  };

  it("re-imports sealed blocks from their RLP with every root verified", async () => {
    const c = await freshChain();
    try {
      for (const b of sealed) {
        const decoded = decodeBlockFromRlp(c, blockRlp(b));
        expect(Buffer.from(decoded.hash()).equals(Buffer.from(b.hash()))).toBe(true);
        await c.importBlock(decoded);
      }
      expect(c.head.header.number).toBe(2n);
      expect(c.getReceipts(sealed[0]!.hash())![1]!.depositNonce).toBe(0n);
      expect(c.getReceipts(sealed[0]!.hash())![1]!.depositReceiptVersion).toBe(1);
    } finally {
      await c.close();
    }
  });

  it("rejects a block whose first transaction is not the L1-attributes deposit", async () => {
    const c = await freshChain();
    try {
      const bad = await reseal(sealed[0]!, sealed[0]!.transactions.slice(1));
      await expect(c.importBlock(decodeBlockFromRlp(c, blockRlp(bad)))).rejects.toThrow(
        /block 1 is invalid: block 1, transaction 0: the first transaction must be the L1-attributes deposit/,
      );
    } finally {
      await c.close();
    }
  });

  it("rejects an L1-attributes deposit with a bad source hash", async () => {
    const c = await freshChain();
    try {
      const l1 = sealed[0]!.transactions[0] as unknown as DepositTransaction;
      const forged = new DepositTransaction({ ...l1, from: l1.from, to: l1.to as Address, sourceHash: new Uint8Array(32).fill(7) });
      const bad = await reseal(sealed[0]!, [forged, ...sealed[0]!.transactions.slice(1)]);
      await expect(c.importBlock(decodeBlockFromRlp(c, blockRlp(bad)))).rejects.toThrow(/block 1, transaction 0: L1-attributes deposit has source hash 0x0707/);
    } finally {
      await c.close();
    }
  });

  it("rejects a malformed deposit encoding naming the block", async () => {
    const c = await freshChain();
    try {
      const values = RLP.decode(blockRlp(sealed[0]!)) as unknown as [unknown, Uint8Array[], ...unknown[]];
      const txs = [...values[1]];
      // A deposit whose isSystemTx field is 0x02 (only 0x80/0x01 are valid booleans).
      const fields = RLP.decode(txs[1]!.subarray(1)) as Uint8Array[];
      fields[6] = Uint8Array.of(2);
      txs[1] = Uint8Array.from([0x7e, ...RLP.encode(fields)]);
      const bytes = RLP.encode([values[0], txs, ...values.slice(2)] as never);
      expect(() => decodeBlockFromRlp(c, bytes)).toThrow(/block 1: .*isSystemTx/);
    } finally {
      await c.close();
    }
  });
});
