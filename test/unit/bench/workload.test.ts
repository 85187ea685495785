/**
 * The shared bench workload (bench/workload): deterministic bytes, chain id and nonces of every
 * transaction, the mix, and real execution of setup and blocks on an in-process devnet
 * (Chain + TxPool + OpDevSequencer, as bench/opDevnet.ts builds blocks).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTxFromRLP, type FeeMarket1559Tx } from "@ethereumjs/tx";
import { bigIntToBytes, bytesToHex, setLengthLeft } from "@ethereumjs/util";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { Chain } from "../../../src/blockchain/chain.js";
import { commonFromGenesis } from "../../../src/chain/chainSpec.js";
import { devnetGenesis } from "../../../src/chain/devnet.js";
import { DEPOSIT_TX_TYPE } from "../../../src/chain/op/depositTx.js";
import { DEVNET_CHAIN_ID } from "../../../src/chain/constants.js";
import { OpDevSequencer } from "../../../src/sequencer/opDevSequencer.js";
import { TxPool } from "../../../src/txpool/txpool.js";
import { POOL_SLOTS, SWAP_TOPIC, TRANSFER_TOPIC } from "../../../bench/workload/contracts.js";
import { buildWorkload, mixCounts, type Workload } from "../../../bench/workload/workload.js";

const hex = (b: Uint8Array): string => bytesToHex(b);
const common = commonFromGenesis(devnetGenesis());
const decode = (raw: Uint8Array): FeeMarket1559Tx => createTxFromRLP(raw, { common }) as FeeMarket1559Tx;

/** A small workload with more senders than the ten dev accounts (4 txs per sender per block → 15 senders). */
const OPTS = { chainId: DEVNET_CHAIN_ID, blocks: 2, txsPerBlock: 60, txsPerSenderPerBlock: 4 } as const;

function kindOf(w: Workload, to: Uint8Array | undefined): "transfers" | "erc20" | "swaps" | "create" {
  if (to === undefined) return "create";
  if (w.tokens.some((t) => hex(t) === hex(to))) return "erc20";
  if (w.pools.some((p) => hex(p) === hex(to))) return "swaps";
  return "transfers";
}

describe("buildWorkload", () => {
  const w = buildWorkload(OPTS);

  it("is deterministic: the same options give the same bytes", () => {
    const again = buildWorkload(OPTS);
    expect(again.setup.map((r) => r.map(hex))).toEqual(w.setup.map((r) => r.map(hex)));
    expect(again.blocks.map((r) => r.map(hex))).toEqual(w.blocks.map((r) => r.map(hex)));
    expect(again.tokens.map(hex)).toEqual(w.tokens.map(hex));
    expect(again.pools.map(hex)).toEqual(w.pools.map(hex));
  });

  it("signs every transaction for the chain id, with contiguous nonces per sender", () => {
    expect(w.senders.length).toBe(15);
    const next = new Map<string, bigint>();
    for (const raw of [...w.setup.flat(), ...w.blocks.flat()]) {
      const tx = decode(raw);
      expect(tx.chainId).toBe(DEVNET_CHAIN_ID);
      expect(tx.verifySignature()).toBe(true);
      const from = tx.getSenderAddress().toString();
      expect(tx.nonce).toBe(next.get(from) ?? 0n);
      next.set(from, tx.nonce + 1n);
    }
    // Every block sender is one of the workload's senders, each with at most 4 txs per block.
    const senders = new Set(w.senders.map(hex));
    for (const block of w.blocks) {
      const per = new Map<string, number>();
      for (const raw of block) {
        const from = decode(raw).getSenderAddress().toString();
        expect(senders.has(from)).toBe(true);
        per.set(from, (per.get(from) ?? 0) + 1);
      }
      expect(Math.max(...per.values())).toBeLessThanOrEqual(4);
    }
  });

  it("honours the mix in every block", () => {
    const mix = { transfers: 1, erc20: 2, swaps: 3 };
    const m = buildWorkload({ chainId: DEVNET_CHAIN_ID, blocks: 2, txsPerBlock: 31, mix });
    const want = mixCounts(31, mix);
    expect(want.transfers + want.erc20 + want.swaps).toBe(31);
    for (const block of m.blocks) {
      const got = { transfers: 0, erc20: 0, swaps: 0, create: 0 };
      for (const raw of block) got[kindOf(m, decode(raw).to?.bytes)]++;
      expect(got).toEqual({ ...want, create: 0 });
    }
    expect(mixCounts(200, { transfers: 30, erc20: 40, swaps: 30 })).toEqual({ transfers: 60, erc20: 80, swaps: 60 });
    expect(() => mixCounts(10, { transfers: 0, erc20: 0, swaps: 0 })).toThrow(/not all 0/);
  });

  it("executes: every setup and block transaction succeeds on the devnet, swaps emit Swap and count", async () => {
    const datadir = mkdtempSync(join(tmpdir(), "basalt-workload-test-"));
    try {
      await Chain.init(datadir, devnetGenesis(), { archive: true });
      const chain = Chain.open(datadir, { archive: true });
      try {
        const pool = new TxPool(chain);
        const sequencer = new OpDevSequencer(chain, pool, 0, pino({ level: "silent" }));
        let swaps = 0;
        for (const [i, round] of [...w.setup, ...w.blocks].entries()) {
          for (const raw of round) await pool.addRaw(raw);
          const number = await sequencer.sealOne();
          const block = chain.getBlockByNumber(number)!;
          const receipts = chain.getReceipts(block.hash())!;
          const user = receipts.filter((r) => r.type !== DEPOSIT_TX_TYPE);
          expect(user.length, `round ${i}: all its transactions in one block`).toBe(round.length);
          expect(user.every((r) => r.status === 1), `round ${i}: every receipt status 1`).toBe(true);
          if (i >= w.setup.length) {
            for (const r of user) {
              const topic = r.logs[0]?.topics[0];
              if (topic !== undefined && hex(topic) === hex(SWAP_TOPIC)) swaps++;
              else if (r.logs.length > 0) expect(hex(topic!)).toBe(hex(TRANSFER_TOPIC));
            }
          }
        }
        expect(pool.size).toBe(0);
        const expectedSwaps = mixCounts(OPTS.txsPerBlock, { transfers: 30, erc20: 40, swaps: 30 }).swaps * OPTS.blocks;
        expect(swaps).toBe(expectedSwaps);
        const state = chain.stateAt(chain.head.header);
        let counted = 0n;
        for (const p of w.pools) {
          const v = state.storage(p, setLengthLeft(bigIntToBytes(BigInt(POOL_SLOTS.swapCount)), 32));
          counted += BigInt(hex(v)) - 1n; // the counter starts at 1
        }
        expect(counted).toBe(BigInt(expectedSwaps));
      } finally {
        await chain.close();
      }
    } finally {
      rmSync(datadir, { recursive: true, force: true });
    }
  });
});
