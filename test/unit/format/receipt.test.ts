import { describe, expect, it } from "vitest";
import { hexToBytes, type PrefixedHexString } from "@ethereumjs/util";
import type { Log, StoredReceipt } from "../../../src/storage/types.js";
import {
  createAddress,
  formatBlockLogs,
  formatLog,
  formatReceipt,
  formatReceipts,
  toData,
  type RpcLog,
  type RpcReceipt,
} from "../../../src/chain/json/index.js";
import { loadChain, loadFixtures, type ChainBlock, type Exchange } from "./chain.js";

const hex = (s: string): Uint8Array => hexToBytes(s as PrefixedHexString);

function wire(ex: Exchange, result: unknown): string {
  const id = (JSON.parse(ex.responseText) as { id: unknown }).id;
  return JSON.stringify({ jsonrpc: "2.0", id, result });
}

function toLog(l: RpcLog): Log {
  return { address: hex(l.address), topics: l.topics.map(hex), data: hex(l.data) };
}

/** The consensus part of a receipt, as basalt stores it, rebuilt from geth's JSON. */
function toStored(r: RpcReceipt): StoredReceipt {
  const out: StoredReceipt = {
    type: Number(BigInt(r.type)),
    cumulativeGasUsed: BigInt(r.cumulativeGasUsed),
    logs: r.logs.map(toLog),
    bloom: hex(r.logsBloom),
  };
  if (r.root !== undefined) out.root = hex(r.root);
  else out.status = Number(BigInt(r.status!)) as 0 | 1;
  return out;
}

/** Receipts standing in for the ones before `index`, consistent with the expected receipt. */
function fillers(expected: RpcReceipt, index: number): StoredReceipt[] {
  const before = BigInt(expected.cumulativeGasUsed) - BigInt(expected.gasUsed);
  const firstLogIndex = expected.logs.length > 0 ? Number(BigInt(expected.logs[0]!.logIndex)) : 0;
  return Array.from({ length: index }, (_, i) => ({
    type: 0,
    status: 1 as const,
    cumulativeGasUsed: i === index - 1 ? before : 0n,
    logs: i === index - 1 ? Array.from({ length: firstLogIndex }, () => ({ address: new Uint8Array(20), topics: [], data: new Uint8Array(0) })) : [],
    bloom: new Uint8Array(256),
  }));
}

describe("receipts and logs against execution-apis fixtures", () => {
  const chain = loadChain();
  const byBlockHash = new Map(chain.map((b) => [b.hashHex, b] as const));
  const seen = new Set<string>();

  for (const fx of loadFixtures("eth_getBlockReceipts")) {
    it(`${fx.name} byte-for-byte`, () => {
      for (const ex of fx.exchanges) {
        const expected = ex.response.result as RpcReceipt[] | null;
        if (expected === null || expected.length === 0) continue;
        const entry = byBlockHash.get(expected[0]!.blockHash)!;
        expect(entry).toBeDefined();
        const formatted = formatReceipts(entry.block, expected.map(toStored), entry.senders);
        expect(formatted).toEqual(expected);
        expect(wire(ex, formatted)).toBe(ex.responseText);
        // single-receipt form agrees
        formatted.forEach((r, i) => expect(formatReceipt(entry.block, expected.map(toStored), entry.senders, i)).toEqual(r));
        for (const r of formatted) seen.add(r.root !== undefined ? "root" : `status-${r.type}`);
      }
    });
  }

  for (const fx of loadFixtures("eth_getTransactionReceipt")) {
    it(`${fx.name} byte-for-byte`, () => {
      for (const ex of fx.exchanges) {
        const expected = ex.response.result as RpcReceipt | null;
        if (expected === null) continue;
        const entry = byBlockHash.get(expected.blockHash)!;
        const index = Number(BigInt(expected.transactionIndex));
        const receipts = [...fillers(expected, index), toStored(expected)];
        const formatted = formatReceipt(entry.block, receipts, entry.senders, index);
        expect(formatted).toEqual(expected);
        expect(wire(ex, formatted)).toBe(ex.responseText);
        seen.add(formatted.root !== undefined ? "root" : `status-${formatted.type}`);
        if (formatted.blobGasUsed !== undefined) seen.add("blob");
        if (formatted.logs.length > 0) seen.add("logs");
      }
    });
  }

  it("covered pre-Byzantium roots, every tx type, blob gas and logs", () => {
    for (const k of ["root", "status-0x0", "status-0x1", "status-0x2", "status-0x3", "status-0x4", "blob", "logs"]) expect(seen).toContain(k);
  });

  for (const fx of loadFixtures("eth_getLogs")) {
    it(`${fx.name} logs byte-for-byte`, () => {
      for (const ex of fx.exchanges) {
        const expected = ex.response.result as RpcLog[] | undefined;
        if (expected === undefined) continue; // error cases belong to the filter code
        const formatted = expected.map((l) => {
          const entry = byBlockHash.get(l.blockHash) as ChainBlock;
          const tx = entry.block.transactions[Number(BigInt(l.transactionIndex))]!;
          expect(toData(tx.hash())).toBe(l.transactionHash);
          return formatLog(toLog(l), {
            blockHash: entry.block.hash(),
            blockNumber: entry.block.header.number,
            blockTimestamp: entry.block.header.timestamp,
            transactionHash: tx.hash(),
            transactionIndex: Number(BigInt(l.transactionIndex)),
            logIndex: Number(BigInt(l.logIndex)),
          });
        });
        expect(wire(ex, formatted)).toBe(ex.responseText);
      }
    });
  }

  it("formatBlockLogs numbers logs across the block", () => {
    const fx = loadFixtures("eth_getBlockReceipts").flatMap((f) => f.exchanges);
    for (const ex of fx) {
      const expected = ex.response.result as RpcReceipt[] | null;
      if (expected === null || expected.length === 0) continue;
      const entry = byBlockHash.get(expected[0]!.blockHash)!;
      expect(formatBlockLogs(entry.block, expected.map(toStored))).toEqual(expected.flatMap((r) => r.logs));
    }
  });

  it("rejects receipt lists that do not match the block", () => {
    const entry = chain[0]!;
    expect(() => formatReceipts(entry.block, [], entry.senders)).toThrow(/receipts/);
    expect(() => formatReceipt(entry.block, [], entry.senders, 0)).toThrow(RangeError);
  });
});

describe("createAddress", () => {
  it("is keccak256(rlp([sender, nonce]))[12:]", () => {
    // well-known: 0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0 with nonce 0..
    const sender = hex("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0");
    expect(toData(createAddress(sender, 0n))).toBe("0xcd234a471b72ba2f1ccf0a70fcaba648a5eecd8d");
    expect(toData(createAddress(sender, 1n))).toBe("0x343c43a37d37dff08ae8c4a11544c718abb4fcf8");
  });
});
