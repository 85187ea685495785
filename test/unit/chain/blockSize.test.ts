/**
 * blockRlpLength (the `size` of block answers, computed from the transactions' envelopes): equal
 * to the block's RLP encoding length on every block of the hive Prague chain — legacy, access
 * list, dynamic fee, blob and set-code transactions, withdrawals, empty blocks.
 */
import { describe, expect, it } from "vitest";
import { blockRlpLength } from "../../../src/chain/blockSize.js";
import { loadChain } from "../format/chain.js";

describe("blockRlpLength", () => {
  it("equals block.serialize().length on every block of the hive chain", () => {
    const chain = loadChain();
    const types = new Set<number>();
    let withdrawals = 0;
    for (const { block } of chain) {
      expect(blockRlpLength(block), `block ${block.header.number}`).toBe(block.serialize().length);
      for (const tx of block.transactions) types.add(tx.type);
      withdrawals += block.withdrawals?.length ?? 0;
    }
    // The chain exercises every envelope shape the length adds up.
    expect([...types].sort()).toEqual([0, 1, 2, 3, 4]);
    expect(withdrawals).toBeGreaterThan(0);
  });
});
