/**
 * Micro-benchmarks of a whole block: RLP encoding (`block.serialize()`) and decoding (the
 * chain's decoder, as import does), and the final JSON text of the block answers —
 * eth_getBlockByNumber / eth_getBlockByHash with transaction hashes and with full transactions,
 * eth_getBlockReceipts — rendered by the response cache's own renderer
 * (`renderBlockAnswer` in src/rpc/methods/blocks.ts: stored senders/receipts read,
 * `formatBlock` / `formatReceipts`, then `JSON.stringify`).
 */
import type { Block } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import { decodeBlockFromRlp } from "../../src/chain/blockCodec.js";
import { toData, toQuantity } from "../../src/chain/json/index.js";
import { renderBlockAnswer } from "../../src/rpc/methods/blocks.js";
import { bytesEqual } from "../../src/util/bytes.js";
import type { MicroFixture } from "./fixture.js";
import { expectThat, type MicroCase } from "./harness.js";

/** The JSON fields the checks read. */
interface BlockJson {
  hash: string;
  number: string;
  transactions: (string | { hash: string; from: string; transactionIndex: string })[];
}
interface ReceiptJson {
  transactionHash: string;
  status: string;
  cumulativeGasUsed: string;
  logs: unknown[];
}

/** eth_getBlockByNumber / eth_getBlockByHash answer text of `block`: the response cache's own renderer. */
export function renderBlockJson(fx: MicroFixture, block: Block, full: boolean): string {
  return renderBlockAnswer(fx.chain, block, full ? "full" : "hashes")!;
}

/** eth_getBlockReceipts answer text of `block`: the response cache's own renderer. */
export function renderReceiptsJson(fx: MicroFixture, block: Block): string | undefined {
  return renderBlockAnswer(fx.chain, block, "receipts");
}

/** Checks a block answer against the block: hash, number, every transaction (hash, and for full ones sender and index). */
function checkBlockJson(name: string, fx: MicroFixture, text: string, full: boolean): void {
  const j = JSON.parse(text) as BlockJson;
  const { block } = fx;
  expectThat(j.hash === toData(block.hash()), name, () => `hash ${j.hash}, expected ${toData(block.hash())}`);
  expectThat(j.number === toQuantity(block.header.number), name, () => `number ${j.number}, expected ${toQuantity(block.header.number)}`);
  expectThat(j.transactions.length === fx.txCount, name, () => `${j.transactions.length} transactions, expected ${fx.txCount}`);
  block.transactions.forEach((tx, i) => {
    const t = j.transactions[i]!;
    const want = toData(tx.hash());
    if (!full) {
      expectThat(t === want, name, () => `transaction ${i}: ${JSON.stringify(t)}, expected ${want}`);
      return;
    }
    expectThat(typeof t === "object", name, () => `transaction ${i} is not an object`);
    expectThat(t.hash === want, name, () => `transaction ${i}: hash ${t.hash}, expected ${want}`);
    expectThat(t.from === toData(fx.senders[i]!), name, () => `transaction ${i}: from ${t.from}, expected ${toData(fx.senders[i]!)}`);
    expectThat(t.transactionIndex === toQuantity(i), name, () => `transaction ${i}: transactionIndex ${t.transactionIndex}`);
  });
}

/** Checks a receipts answer against the stored receipts: count, hashes, status, cumulative gas, log counts. */
function checkReceiptsJson(name: string, fx: MicroFixture, text: string | undefined): void {
  expectThat(text !== undefined, name, () => "no receipts stored for the block");
  const j = JSON.parse(text) as ReceiptJson[];
  expectThat(j.length === fx.txCount, name, () => `${j.length} receipts, expected ${fx.txCount}`);
  fx.block.transactions.forEach((tx, i) => {
    const r = j[i]!;
    const s = fx.receipts[i]!;
    expectThat(r.transactionHash === toData(tx.hash()), name, () => `receipt ${i}: transactionHash ${r.transactionHash}`);
    expectThat(r.status === "0x1", name, () => `receipt ${i}: status ${r.status}, 0x1 expected`);
    expectThat(r.cumulativeGasUsed === toQuantity(s.cumulativeGasUsed), name, () => `receipt ${i}: cumulativeGasUsed ${r.cumulativeGasUsed}`);
    expectThat(r.logs.length === s.logs.length, name, () => `receipt ${i}: ${r.logs.length} logs, ${s.logs.length} stored`);
  });
  const last = j[j.length - 1];
  expectThat(last?.cumulativeGasUsed === toQuantity(fx.block.header.gasUsed), name, () => `last cumulativeGasUsed is not the block's gasUsed`);
}

/** Names of the block cases. */
export const BLOCK_CASE_NAMES = {
  encode: "block.rlp.encode",
  decode: "block.rlp.decode",
  hashes: "rpc.eth_getBlockByNumber.hashes",
  full: "rpc.eth_getBlockByNumber.full",
  receipts: "rpc.eth_getBlockReceipts",
} as const;

/** The block cases: RLP encode/decode, the three JSON answers. */
export function blockCases(fx: MicroFixture): MicroCase[] {
  const { block, chain } = fx;
  const perTx = { count: fx.txCount, unit: "tx" };
  // The reference RLP: the stored header and body, joined as a block ([header, ...body]).
  const stored = (): Uint8Array => {
    const h = chain.store.getHeaderRlp(block.hash());
    const b = chain.store.getBodyRlp(block.hash());
    if (h === undefined || b === undefined) throw new Error("benchmark block missing from the store");
    return RLP.encode([RLP.decode(h), ...(RLP.decode(b) as unknown[])] as never);
  };
  const txHashes = block.transactions.map((tx) => toData(tx.hash()));

  const N = BLOCK_CASE_NAMES;
  const encode: MicroCase<Uint8Array> = {
    name: N.encode,
    perItem: perTx,
    run: () => block.serialize(),
    check(out) {
      expectThat(bytesEqual(out, stored()), N.encode, () => "block.serialize() differs from the stored header + body");
    },
  };
  const decode: MicroCase<Block> = {
    name: N.decode,
    perItem: perTx,
    run: () => decodeBlockFromRlp(chain, fx.rlp),
    check(out) {
      const name = N.decode;
      expectThat(bytesEqual(out.hash(), block.hash()), name, () => `decoded block hash ${toData(out.hash())}, expected ${toData(block.hash())}`);
      expectThat(out.transactions.length === fx.txCount, name, () => `${out.transactions.length} transactions decoded, ${fx.txCount} expected`);
      out.transactions.forEach((tx, i) => expectThat(toData(tx.hash()) === txHashes[i], name, () => `transaction ${i}: hash ${toData(tx.hash())}`));
    },
  };
  const hashes: MicroCase<string> = {
    name: N.hashes,
    perItem: perTx,
    run: () => renderBlockJson(fx, block, false),
    check: (out) => checkBlockJson(N.hashes, fx, out, false),
  };
  const full: MicroCase<string> = {
    name: N.full,
    perItem: perTx,
    run: () => renderBlockJson(fx, block, true),
    check: (out) => checkBlockJson(N.full, fx, out, true),
  };
  const receipts: MicroCase<string | undefined> = {
    name: N.receipts,
    perItem: perTx,
    run: () => renderReceiptsJson(fx, block),
    check: (out) => checkReceiptsJson(N.receipts, fx, out),
  };
  return [encode, decode, hashes, full, receipts] as MicroCase[];
}
