/**
 * Execution witnesses over a real devnet chain with mixed traffic (transfers to new accounts, an
 * ERC-20 whose balances are written and cleared, self-destructing creations, BLOCKHASH reads):
 * every block's `debug_executionWitness` re-executes statelessly — from the witness alone — to
 * the block's header (state root and every other commitment); a witness missing any one of its
 * trie nodes does not; the headers reach down to the lowest BLOCKHASH target; and a payload's
 * witness (`debug_executePayload`) rebuilds the same block.
 */
import { bytesToHex, equalsBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { openDevChain } from "../../helpers/devChain.js";
import { blockExecutionWitness, payloadExecutionWitness } from "../../../src/blockchain/executionWitness.js";
import { decodeOpExtraData } from "../../../src/chain/op/eip1559.js";
import { envelopeOf } from "../../../src/chain/envelope.js";
import { OpFork, opForkAt } from "../../../src/chain/op/forks.js";
import { executeStateless, verifyStateless } from "../../../src/execution/op/stateless.js";
import { WitnessStore } from "../../../src/execution/state/witnessState.js";
import type { ExecutionWitness } from "../../../src/execution/witness/types.js";
import { keccak256 } from "../../../src/util/keccak.js";


const storeOf = (w: ExecutionWitness): WitnessStore => WitnessStore.fromValues([...w.state, ...w.codes, ...w.headers]);

describe("execution witnesses of a devnet chain", () => {
  it("every block's witness re-executes statelessly to its header; each node is needed; payload witnesses rebuild the block", async () => {
    const dev = await openDevChain("basalt-witness-");
    const { chain, traffic } = dev;
    try {
      for (let i = 0; i < 14; i++) {
        if (i === 12) await traffic.blockHashProbe(6);
        await traffic.block();
      }
      const op = chain.op!;
      const tip = chain.head.header.number;
      let nodes = 0;
      for (let n = 1n; n <= tip; n++) {
        const block = chain.getBlockByNumber(n)!;
        const parent = chain.getHeaderByHash(block.header.parentHash)!;
        const w = await blockExecutionWitness(chain, block);
        nodes += w.state.length;
        expect(w.state.some((s) => equalsBytes(keccak256(s), parent.stateRoot)), `block ${n}: the parent state root node`).toBe(true);
        expect(equalsBytes(keccak256(w.headers.at(-1)!), parent.hash()), `block ${n}: the last header is the parent`).toBe(true);
        const totals = await verifyStateless(storeOf(w), block, parent, op);
        expect(bytesToHex(totals.stateRoot)).toBe(bytesToHex(block.header.stateRoot));
        // Every transaction's sender and recipient is among the keys.
        for (const tx of block.transactions) if (tx.to !== undefined) expect(w.keys.map(bytesToHex)).toContain(tx.to.toString());
      }
      expect(nodes).toBeGreaterThan(0);

      // BLOCKHASH(NUMBER − 6) in block 13: the headers start at block 7.
      const probe = await blockExecutionWitness(chain, chain.getBlockByNumber(13n)!);
      expect(probe.headers.length).toBe(6);
      expect(equalsBytes(keccak256(probe.headers[0]!), chain.getCanonicalHash(7n)!)).toBe(true);

      // Without any one trie node, block 6's witness no longer re-executes.
      const block6 = chain.getBlockByNumber(6n)!;
      const parent6 = chain.getHeaderByHash(block6.header.parentHash)!;
      const w6 = await blockExecutionWitness(chain, block6);
      for (let i = 0; i < w6.state.length; i++) {
        const fewer = { ...w6, state: w6.state.filter((_, j) => j !== i) };
        await expect(verifyStateless(storeOf(fewer), block6, parent6, op), `without state node ${i}`).rejects.toThrow(/missing the trie node/);
      }

      // debug_executePayload: block 6's attributes on its parent give a witness that rebuilds block 6.
      const h = block6.header;
      const fork = opForkAt(op, h.timestamp);
      const extra = fork >= OpFork.holocene ? decodeOpExtraData(h.extraData, fork) : undefined;
      const attrs = {
        timestamp: h.timestamp,
        prevRandao: h.mixHash,
        suggestedFeeRecipient: h.coinbase.bytes,
        parentBeaconBlockRoot: h.parentBeaconBlockRoot,
        transactions: block6.transactions.map(envelopeOf),
        noTxPool: true,
        gasLimit: h.gasLimit,
        eip1559Params: extra === undefined ? undefined : eip1559ParamsOf(extra),
        minBaseFee: extra?.minBaseFee,
      };
      const pw = await payloadExecutionWitness(chain, parent6, attrs);
      expect(pw.headers).toEqual([]);
      const rebuilt = await executeStateless(WitnessStore.fromValues([...pw.state, ...pw.codes]), parent6, attrs, op, chain.commonAt(h.number, h.timestamp));
      expect(bytesToHex(rebuilt.block.hash())).toBe(bytesToHex(block6.hash()));
    } finally {
      await dev.close();
    }
  }, 120_000);
});

/** The 8-byte Holocene `eip1559Params` of decoded extraData (denominator u32 BE ‖ elasticity u32 BE). */
function eip1559ParamsOf(e: { denominator: number; elasticity: number }): Uint8Array {
  const out = new Uint8Array(8);
  const v = new DataView(out.buffer);
  v.setUint32(0, e.denominator);
  v.setUint32(4, e.elasticity);
  return out;
}
