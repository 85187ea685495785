/**
 * The derivation codecs on real OP Mainnet batch data (/work/shared/fixtures/op/derivation,
 * README there; both files from op-rs/kona @ cdb9be2, crates/protocol/derive/testdata):
 * a batcher transaction carrying one frame of a zlib channel with one span batch of 27 blocks,
 * and a zlib channel with one span batch of 143 blocks / 1,766 transactions.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { createTxFromRLP } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { DERIVATION_FIXTURES } from "../../helpers/derivation.js";
import { encodeBatch } from "../../../src/derivation/batch.js";
import { loadNative } from "../../../src/chain/crypto.js";
import { decodeBatchStream, encodeBatchStream, readChannel } from "../../../src/derivation/channel.js";
import { decompressChannel } from "../../../src/derivation/channelCompression.js";
import { encodeBatcherData, parseBatcherData } from "../../../src/derivation/frame.js";
import { type RawSpanBatch, deriveSpanBatch, encodeSpanBatch, expandSpanBatch, spanBatchFromBlocks } from "../../../src/derivation/spanBatch.js";

const DIR = DERIVATION_FIXTURES;

/** OP Mainnet's rollup config values these tests need (op-mainnet.toml: chain_id, block_time, genesis.l2_time). */
function opMainnet(): { chainId: bigint; blockTime: bigint; genesis: { l2Time: bigint }; batchInbox: string; batcher: string } {
  const toml = readFileSync(path.join(DIR, "op-mainnet.toml"), "utf8");
  const value = (key: string) => {
    const m = new RegExp(`^\\s*${key}\\s*=\\s*"?([^"\\s]+)"?`, "m").exec(toml);
    if (!m) throw new Error(`op-mainnet.toml has no ${key}`);
    return m[1]!;
  };
  return {
    chainId: BigInt(value("chain_id")),
    blockTime: BigInt(value("block_time")),
    genesis: { l2Time: BigInt(value("l2_time")) },
    batchInbox: value("batch_inbox_addr").toLowerCase(),
    batcher: value("batcherAddress").toLowerCase(),
  };
}
const OP = opMainnet();
/**
 * L1 (Ethereum mainnet) rules for the batcher transaction; OP Mainnet (chain 10) for rebuilt L2
 * transactions, with basalt's native secp256k1 when built (recovering 1,766 senders in JS is slow).
 */
const L1_COMMON = createCustomCommon({}, Mainnet, { hardfork: Hardfork.Cancun });
const L2_COMMON = createCustomCommon({ chainId: 10 }, Mainnet, { hardfork: Hardfork.Prague, customCrypto: loadNative() ?? {} });

function spanOf(b: ReturnType<typeof decodeBatchStream>["batches"][number] | undefined): RawSpanBatch {
  if (b?.type !== "span") throw new Error("expected a span batch");
  return b.batch;
}

/** Every rebuilt transaction decodes with @ethereumjs and has a recoverable sender. */
function expectSignedTransactions(txs: Uint8Array[]): void {
  for (const raw of txs) {
    const tx = createTxFromRLP(raw, { common: L2_COMMON });
    expect(tx.isSigned()).toBe(true);
    expect(tx.getSenderAddress().toString()).toMatch(/^0x[0-9a-f]{40}$/);
    expect(bytesToHex(tx.serialize())).toBe(bytesToHex(raw));
  }
}

/** Rebuilds the raw span batch from its derived blocks (the batcher path) and encodes it. */
function reencodeFromBlocks(raw: RawSpanBatch): Uint8Array {
  const span = deriveSpanBatch(raw, OP);
  const rebuilt = spanBatchFromBlocks(span.blocks, OP, { parentHash: raw.parentCheck, lastEpochHash: raw.l1OriginCheck, firstBlockStartsEpoch: raw.originBits.get(0) });
  return encodeSpanBatch(rebuilt);
}

describe("OP Mainnet batcher transaction (op-mainnet-batcher-tx.bin)", () => {
  const bin = new Uint8Array(readFileSync(path.join(DIR, "op-mainnet-batcher-tx.bin")));
  const tx = createTxFromRLP(bin, { common: L1_COMMON });

  it("is a type-2 transaction to the batch inbox from the OP Mainnet batcher", () => {
    expect(tx.type).toBe(2);
    expect(tx.to?.toString()).toBe(OP.batchInbox);
    expect(OP.batchInbox).toBe("0xff00000000000000000000000000000000000010");
    expect(tx.getSenderAddress().toString()).toBe("0x6887246668a3b87F54DeB3b94Ba47a6f63F32985".toLowerCase());
    expect(OP.batcher).toBe("0x6887246668a3b87f54deb3b94ba47a6f63f32985");
  });

  it("carries one frame: channel ac3299…, frame 0, 119,799 bytes, last; re-encodes to the same calldata", () => {
    expect(tx.data.length).toBe(119_823);
    const r = parseBatcherData(tx.data);
    if (r.status !== "frames") throw new Error(`expected frames, got ${r.status}`);
    expect(r.frames).toHaveLength(1);
    const [f] = r.frames;
    expect(bytesToHex(f!.channelId)).toBe("0xac329933f5efdcc35ccd284232a376d3");
    expect(f!.frameNumber).toBe(0);
    expect(f!.data.length).toBe(119_799);
    expect(f!.isLast).toBe(true);
    expect(bytesToHex(encodeBatcherData(r.frames))).toBe(bytesToHex(tx.data));
  });

  it("decompresses to 240,308 bytes holding one span batch of 27 blocks with the listed values, and re-encodes to the same bytes", async () => {
    const r = parseBatcherData(tx.data);
    if (r.status !== "frames") throw new Error("expected frames");
    const channel = r.frames[0]!.data;
    const d = await decompressChannel(channel, { fjord: false });
    expect(d.compression).toBe("zlib");
    expect(d.error).toBeUndefined();
    expect(d.data.length).toBe(240_308);

    const read = await readChannel(channel, { fjord: false });
    expect(read.error).toBeUndefined();
    expect(read.batches).toHaveLength(1);
    expect(read.consumedBytes).toBe(240_308);
    const raw = spanOf(read.batches[0]);
    expect(raw.blockCount).toBe(27);
    expect(raw.l1OriginNum).toBe(19_426_585n);
    expect(raw.relTimestamp).toBe(24_269_254n);
    expect(bytesToHex(raw.parentCheck)).toBe("0x4a78c6069d413ac5cd75401310076b7acbc10cea");
    expect(bytesToHex(raw.l1OriginCheck)).toBe("0x4fcd7915716bdcf8ba963e591577721000dd2bf7");
    expect(raw.txs.totalTxs).toBe(209);
    expectSignedTransactions(deriveSpanBatch(raw, OP).blocks.flatMap((b) => b.transactions));

    expect(bytesToHex(encodeBatchStream(read.batches))).toBe(bytesToHex(d.data));
    expect(bytesToHex(reencodeFromBlocks(raw))).toBe(bytesToHex(encodeBatch(read.batches[0]!).subarray(1)));
  });
});

describe("OP Mainnet channel of 143 blocks (op-mainnet-channel-143-blocks.hex)", () => {
  const channel = hexToBytes(`0x${readFileSync(path.join(DIR, "op-mainnet-channel-143-blocks.hex"), "utf8").trim()}`);

  it("is a 615,361-byte zlib channel that decompresses to 1,409,463 bytes", async () => {
    expect(channel.length).toBe(615_361);
    const d = await decompressChannel(channel, { fjord: true });
    expect(d.compression).toBe("zlib");
    expect(d.error).toBeUndefined();
    expect(d.data.length).toBe(1_409_463);
    expect(d.producedBytes).toBe(1_409_463);
  });

  it("holds one span batch: 143 blocks, 1,766 transactions, 24 origin bits, the listed prefix; expands to 143 singular batches", async () => {
    const read = await readChannel(channel, { fjord: false });
    expect(read.error).toBeUndefined();
    expect(read.batches).toHaveLength(1);
    const raw = spanOf(read.batches[0]);
    expect(raw.blockCount).toBe(143);
    expect(raw.txs.totalTxs).toBe(1_766);
    expect(raw.blockTxCounts.reduce((a, c) => a + c, 0)).toBe(1_766);
    expect(raw.originBits.popcount()).toBe(24);
    // Its transactions by type: 454 legacy (all EIP-155), 11 EIP-2930, 1,301 EIP-1559; one creates a contract.
    expect(raw.txs.txTypes.filter((t) => t === 0)).toHaveLength(454);
    expect(raw.txs.txTypes.filter((t) => t === 1)).toHaveLength(11);
    expect(raw.txs.txTypes.filter((t) => t === 2)).toHaveLength(1_301);
    expect(raw.txs.protectedBits.popcount()).toBe(454);
    expect(raw.txs.contractCreationBits.popcount()).toBe(1);
    expect(raw.l1OriginNum).toBe(20_089_770n);
    expect(raw.relTimestamp).toBe(32_295_734n);
    expect(bytesToHex(raw.parentCheck)).toBe("0xba1be7cfde4724e81290aa5ae3c082731ce44823");
    expect(bytesToHex(raw.l1OriginCheck)).toBe("0x4bd8da85bfabf4daa6a3f294d3d51dd927c6cbcb");

    const span = deriveSpanBatch(raw, OP);
    expect(span.blocks).toHaveLength(143);
    // Origins: the last block's is l1_origin_num; walking back, one less past each set bit (bit 0 excluded).
    const bitsAfterFirst = raw.originBits.popcount() - (raw.originBits.get(0) ? 1 : 0);
    expect(span.blocks[0]!.epochNum).toBe(20_089_770n - BigInt(bitsAfterFirst));
    expect(span.blocks[142]!.epochNum).toBe(20_089_770n);
    const hashes = new Map<bigint, Uint8Array>();
    for (const b of span.blocks) hashes.set(b.epochNum, new Uint8Array(32).fill(Number(b.epochNum % 251n)));
    const singular = expandSpanBatch(span, (n) => hashes.get(n));
    expect(singular).toHaveLength(143);
    singular.forEach((s, i) => {
      expect(s.timestamp).toBe(OP.genesis.l2Time + 32_295_734n + BigInt(i) * 2n);
      const expectedEpoch = i === 0 ? span.blocks[0]!.epochNum : singular[i - 1]!.epochNum + (raw.originBits.get(i) ? 1n : 0n);
      expect(s.epochNum).toBe(expectedEpoch);
      expect(s.epochHash).toBe(hashes.get(s.epochNum));
      expect(s.transactions).toHaveLength(raw.blockTxCounts[i]!);
    });
    expect(singular[0]!.timestamp).toBe(1_686_068_903n + 32_295_734n);
    expectSignedTransactions(singular.flatMap((s) => s.transactions));
  });

  it("re-encodes to the same bytes, directly and rebuilt from its derived blocks", async () => {
    const d = await decompressChannel(channel, { fjord: false });
    const read = decodeBatchStream(d.data);
    expect(read.error).toBeUndefined();
    expect(bytesToHex(encodeBatchStream(read.batches))).toBe(bytesToHex(d.data));
    const raw = spanOf(read.batches[0]);
    expect(bytesToHex(reencodeFromBlocks(raw))).toBe(bytesToHex(encodeSpanBatch(raw)));
  });
});
