import { describe, expect, it } from "vitest";
import { createFeeMarket1559Tx, createLegacyTx } from "@ethereumjs/tx";
import { randomBytes } from "node:crypto";
import { effectiveGasPrice, formatTransaction, toData, type RpcTransaction } from "../../../src/chain/json/index.js";
import { loadChain, loadFixtures, type ChainBlock, type Exchange } from "./chain.js";

function wire(ex: Exchange, result: unknown): string {
  const id = (JSON.parse(ex.responseText) as { id: unknown }).id;
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

function formatAt(entry: ChainBlock, index: number): RpcTransaction {
  const { block, senders } = entry;
  return formatTransaction(block.transactions[index]!, {
    blockHash: block.hash(),
    blockNumber: block.header.number,
    blockTimestamp: block.header.timestamp,
    index,
    baseFee: block.header.baseFeePerGas,
    sender: senders[index]!,
  });
}

describe("formatTransaction against execution-apis fixtures", () => {
  const chain = loadChain();
  const byHash = new Map<string, { entry: ChainBlock; index: number }>();
  for (const entry of chain) entry.block.transactions.forEach((tx, index) => byHash.set(toData(tx.hash()), { entry, index }));
  const seenTypes = new Set<string>();

  for (const fx of loadFixtures("eth_getTransactionByHash")) {
    it(`${fx.name} byte-for-byte`, () => {
      for (const ex of fx.exchanges) {
        const expected = ex.response.result as RpcTransaction | null;
        const hit = byHash.get(ex.request.params[0] as string);
        if (expected === null) {
          expect(hit).toBeUndefined();
          continue;
        }
        expect(hit).toBeDefined();
        const formatted = formatAt(hit!.entry, hit!.index);
        expect(formatted).toEqual(expected);
        expect(wire(ex, formatted)).toBe(ex.responseText);
        seenTypes.add(formatted.type + (formatted.chainId !== undefined ? "+chainId" : ""));
      }
    });
  }

  for (const method of ["eth_getTransactionByBlockHashAndIndex", "eth_getTransactionByBlockNumberAndIndex"]) {
    for (const fx of loadFixtures(method)) {
      it(`${fx.name} byte-for-byte`, () => {
        for (const ex of fx.exchanges) {
          const [blockRef, indexHex] = ex.request.params as [string, string];
          const entry =
            method === "eth_getTransactionByBlockHashAndIndex"
              ? chain.find((b) => b.hashHex === blockRef)
              : chain.find((b) => b.block.header.number === BigInt(blockRef));
          expect(entry).toBeDefined();
          const formatted = formatAt(entry!, Number(BigInt(indexHex)));
          expect(wire(ex, formatted)).toBe(ex.responseText);
        }
      });
    }
  }

  it("covered legacy, 2930, 1559, 4844 and 7702 transactions", () => {
    for (const t of ["0x0", "0x1+chainId", "0x2+chainId", "0x3+chainId", "0x4+chainId"]) expect(seenTypes).toContain(t);
  });

  it("reports chainId on legacy txs only when EIP-155 protected", () => {
    let unprotected = 0;
    let protectedCount = 0;
    for (const entry of chain) {
      entry.block.transactions.forEach((tx, i) => {
        if (tx.type !== 0) return;
        const f = formatAt(entry, i);
        const v = BigInt(f.v);
        if (v === 27n || v === 28n) {
          unprotected++;
          expect(f.chainId).toBeUndefined();
        } else {
          protectedCount++;
          expect(f.chainId).toBe("0xc72dd9d5e883e");
        }
        expect(f.yParity).toBeUndefined();
      });
    }
    expect(unprotected).toBeGreaterThan(0);
    expect(protectedCount).toBeGreaterThan(0);
  });

  it("formats every transaction of the chain with the geth key order", () => {
    const order = [
      "blockHash", "blockNumber", "blockTimestamp", "from", "gas", "gasPrice", "maxFeePerGas",
      "maxPriorityFeePerGas", "maxFeePerBlobGas", "hash", "input", "nonce", "to", "transactionIndex",
      "value", "type", "accessList", "chainId", "blobVersionedHashes", "authorizationList", "v", "r", "s", "yParity",
    ];
    for (const entry of chain) {
      entry.block.transactions.forEach((_, i) => {
        const keys = Object.keys(formatAt(entry, i));
        const positions = keys.map((k) => order.indexOf(k));
        expect(positions.every((p) => p >= 0)).toBe(true);
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
      });
    }
  });
});

describe("formatTransaction for pending transactions", () => {
  const key = randomBytes(32);
  const sender = new Uint8Array(20).fill(0xab);

  it("nulls the block fields and reports maxFeePerGas as gasPrice", () => {
    const tx = createFeeMarket1559Tx({ chainId: 1n, nonce: 3n, maxFeePerGas: 100n, maxPriorityFeePerGas: 2n, gasLimit: 21000n, to: new Uint8Array(20) }).sign(key);
    for (const f of [formatTransaction(tx, { sender }), formatTransaction(tx, null, sender)]) {
      expect(f.blockHash).toBeNull();
      expect(f.blockNumber).toBeNull();
      expect(f.blockTimestamp).toBeNull();
      expect(f.transactionIndex).toBeNull();
      expect(f.from).toBe(toData(sender));
      expect(f.gasPrice).toBe("0x64");
      expect(f.maxFeePerGas).toBe("0x64");
      expect(f.maxPriorityFeePerGas).toBe("0x2");
      expect(f.accessList).toEqual([]);
      expect(f.yParity).toBe(f.v);
      expect(Object.keys(f).slice(0, 4)).toEqual(["blockHash", "blockNumber", "blockTimestamp", "from"]);
    }
    expect(() => formatTransaction(tx, null)).toThrow(/sender/);
  });

  it("uses min(maxFee, baseFee + tip) once mined", () => {
    const tx = createFeeMarket1559Tx({ chainId: 1n, maxFeePerGas: 100n, maxPriorityFeePerGas: 2n, gasLimit: 21000n }).sign(key);
    expect(effectiveGasPrice(tx, 50n)).toBe(52n);
    expect(effectiveGasPrice(tx, 99n)).toBe(100n);
    expect(effectiveGasPrice(tx, undefined)).toBe(100n);
    const legacy = createLegacyTx({ gasPrice: 7n, gasLimit: 21000n }).sign(key);
    expect(effectiveGasPrice(legacy, 3n)).toBe(7n);
    const f = formatTransaction(tx, { blockHash: new Uint8Array(32), blockNumber: 1n, index: 0, baseFee: 50n, sender });
    expect(f.gasPrice).toBe("0x34");
    expect(f.to).toBeNull();
    expect("blockTimestamp" in f).toBe(false);
  });
});
