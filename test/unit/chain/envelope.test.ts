/**
 * Transaction envelopes and hashes of decoded blocks (chain/envelope.ts): a block decoded from
 * RLP remembers each typed transaction's envelope from the body bytes (a copy, not a view of
 * the caller's buffer), and `envelopeOf` / `txHashOf` equal @ethereumjs's `serialize()` /
 * `hash()` for legacy, EIP-2930 and EIP-1559 transactions.
 */
import { createBlock } from "@ethereumjs/block";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createAccessList2930Tx, createFeeMarket1559Tx, createLegacyTx } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { decodeBlockFromRlp } from "../../../src/chain/blockCodec.js";
import { envelopeOf, txHashOf } from "../../../src/chain/envelope.js";

const KEY = hexToBytes("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
const TO: `0x${string}` = "0x00000000000000000000000000000000000c0de0";

describe("transaction envelopes of decoded blocks", () => {
  it("remembers typed envelopes from the body bytes and hashes every type as @ethereumjs does", () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague });
    const txs = [
      createLegacyTx({ nonce: 0n, gasPrice: 10n, gasLimit: 21_000n, to: TO, value: 1n }, { common }).sign(KEY),
      createAccessList2930Tx({ nonce: 1n, gasPrice: 10n, gasLimit: 30_000n, to: TO, accessList: [{ address: TO, storageKeys: [`0x${"00".repeat(31)}01`] }] }, { common }).sign(KEY),
      createFeeMarket1559Tx({ nonce: 2n, maxFeePerGas: 20n, maxPriorityFeePerGas: 2n, gasLimit: 50_000n, to: TO, data: "0xa9059cbb" }, { common }).sign(KEY),
    ];
    const block = createBlock({ header: { number: 1n, gasLimit: 30_000_000n, baseFeePerGas: 7n, timestamp: 1n }, transactions: txs }, { common });
    const rlp = block.serialize();
    const decoded = decodeBlockFromRlp({ op: undefined, commonAt: () => common }, rlp);
    // The caller may reuse its buffer: the remembered envelopes must not change with it.
    rlp.fill(0);
    expect(decoded.transactions.length).toBe(3);
    for (const [i, tx] of decoded.transactions.entries()) {
      expect(bytesToHex(envelopeOf(tx)), `envelope of tx ${i}`).toBe(bytesToHex(txs[i]!.serialize()));
      expect(bytesToHex(txHashOf(tx)), `hash of tx ${i}`).toBe(bytesToHex(txs[i]!.hash()));
    }
  });
});
