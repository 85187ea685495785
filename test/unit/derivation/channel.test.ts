/**
 * Channels as batch streams: round trips, where reading stops (a malformed string, an unknown
 * batch type, a batch that does not decode, a truncated or corrupt stream, the
 * `MAX_RLP_BYTES_PER_CHANNEL` limit) and that every batch before that point is kept, as op-node's
 * `BatchReader` / `ChannelInReader` do.
 */
import { once } from "node:events";
import { createDeflate, deflateSync } from "node:zlib";
import { RLP } from "@ethereumjs/rlp";
import { describe, expect, it } from "vitest";
import { CHANNEL_DECOMPRESS_CHUNK_BYTES, MAX_RLP_BYTES_PER_CHANNEL_BEDROCK } from "../../../src/derivation/constants.js";
import { type Batch, encodeBatch } from "../../../src/derivation/batch.js";
import { joinBytes } from "../../../src/derivation/bytes.js";
import { decodeBatchStream, encodeBatchStream, encodeChannel, readChannel } from "../../../src/derivation/channel.js";
import { compressChannel } from "../../../src/derivation/channelCompression.js";
import { DerivationCodecErrorCode } from "../../../src/derivation/codecErrors.js";
import { spanBatchFromBlocks } from "../../../src/derivation/spanBatch.js";

/** A singular batch at `n` with `txBytes` bytes of transaction data in one transaction. */
function singular(n: number, txBytes = 40): Batch {
  return {
    type: "singular",
    batch: {
      parentHash: new Uint8Array(32).fill(n),
      epochNum: BigInt(1000 + n),
      epochHash: new Uint8Array(32).fill(n + 1),
      timestamp: BigInt(2000 + 2 * n),
      transactions: [new Uint8Array(txBytes).fill(n & 0xff)],
    },
  };
}
/** A span batch of two empty blocks. */
const SPAN: Batch = {
  type: "span",
  batch: spanBatchFromBlocks(
    [
      { epochNum: 5n, timestamp: 100n, transactions: [] },
      { epochNum: 6n, timestamp: 102n, transactions: [] },
    ],
    { chainId: 8453n, blockTime: 2n, genesis: { l2Time: 0n } },
    { parentHash: new Uint8Array(20), lastEpochHash: new Uint8Array(20).fill(6), firstBlockStartsEpoch: false },
  ),
};
const BATCHES: Batch[] = [singular(1), SPAN, singular(2, 0), singular(3, 500)];
const item = (b: Batch) => RLP.encode(encodeBatch(b));
const hexes = (bs: Batch[]) => bs.map((b) => Buffer.from(encodeBatch(b)).toString("hex"));

describe("batch streams", () => {
  it("round-trip: each batch an RLP byte string, in order", () => {
    const stream = encodeBatchStream(BATCHES);
    expect(stream).toEqual(joinBytes(BATCHES.map(item)));
    const r = decodeBatchStream(stream);
    expect(r.error).toBeUndefined();
    expect(r.consumedBytes).toBe(stream.length);
    expect(hexes(r.batches)).toEqual(hexes(BATCHES));
    expect(decodeBatchStream(new Uint8Array(0))).toEqual({ batches: [], consumedBytes: 0 });
  });

  it.each<[string, Uint8Array, string]>([
    ["an RLP list between batches", Uint8Array.of(0xc1, 0x80), DerivationCodecErrorCode.MALFORMED_BATCH_STREAM],
    ["an empty batch string", Uint8Array.of(0x80), DerivationCodecErrorCode.UNKNOWN_BATCH_TYPE],
    ["a batch of type 2", RLP.encode(Uint8Array.of(2, 0xc0)), DerivationCodecErrorCode.UNKNOWN_BATCH_TYPE],
    ["a bare byte (a one-byte string of type 5)", Uint8Array.of(0x05), DerivationCodecErrorCode.UNKNOWN_BATCH_TYPE],
    ["a non-canonical string header", Uint8Array.of(0xb8, 0x02, 0x00, 0xc0), DerivationCodecErrorCode.MALFORMED_BATCH_STREAM],
    ["a singular batch that does not decode", RLP.encode(Uint8Array.of(0, 0xc1, 0x80)), DerivationCodecErrorCode.MALFORMED_SINGULAR_BATCH],
    ["a span batch that does not decode", RLP.encode(Uint8Array.of(1, 0x00)), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH],
  ])("keep the batches before %s and stop there", (_name, bad, code) => {
    const before = joinBytes([item(BATCHES[0]!), item(BATCHES[1]!)]);
    const r = decodeBatchStream(joinBytes([before, bad, item(BATCHES[2]!)]));
    expect(hexes(r.batches)).toEqual(hexes(BATCHES.slice(0, 2)));
    expect(r.consumedBytes).toBe(before.length);
    expect(r.error?.code).toBe(code);
    if (code === DerivationCodecErrorCode.MALFORMED_BATCH_STREAM) expect(r.error?.meta).toMatchObject({ offset: before.length });
  });

  it("keep the batches before trailing garbage (a string cut short by the end of the stream)", () => {
    const before = joinBytes([item(BATCHES[0]!), item(BATCHES[1]!)]);
    const r = decodeBatchStream(joinBytes([before, Uint8Array.of(0x85, 1, 2)]));
    expect(hexes(r.batches)).toEqual(hexes(BATCHES.slice(0, 2)));
    expect(r.error?.code).toBe(DerivationCodecErrorCode.MALFORMED_BATCH_STREAM);
    expect(r.error?.message).toContain("declares 5 bytes but 2 remain");
  });
});

describe("channels", () => {
  it.each(["zlib", "brotli"] as const)("round-trip through %s", async (compression) => {
    const channel = encodeChannel(BATCHES, { compression });
    const r = await readChannel(channel, { fjord: true });
    expect(r.error).toBeUndefined();
    expect(r.compression).toBe(compression);
    expect(hexes(r.batches)).toEqual(hexes(BATCHES));
    expect(r.decompressedBytes).toBe(encodeBatchStream(BATCHES).length);
  });

  it("yield no batches for brotli before Fjord, or an unknown compression", async () => {
    const brotli = await readChannel(encodeChannel(BATCHES, { compression: "brotli" }), { fjord: false });
    expect(brotli.batches).toEqual([]);
    expect(brotli.error?.code).toBe(DerivationCodecErrorCode.BROTLI_BEFORE_FJORD);
    const unknown = await readChannel(Uint8Array.of(0x22, 0, 0), { fjord: true });
    expect(unknown.error?.code).toBe(DerivationCodecErrorCode.UNKNOWN_COMPRESSION);
  });

  it("keep the batches a truncated channel still holds whole", async () => {
    const many = Array.from({ length: 30 }, (_, i) => singular(i, 300 + i));
    const channel = encodeChannel(many, { compression: "zlib" });
    let last = 0;
    for (let keep = 2; keep < channel.length; keep += Math.ceil(channel.length / 13)) {
      const r = await readChannel(channel.subarray(0, keep), { fjord: false });
      expect(hexes(r.batches)).toEqual(hexes(many.slice(0, r.batches.length)));
      expect(r.batches.length).toBeGreaterThanOrEqual(last);
      last = r.batches.length;
      // Cut inside a batch: a malformed (short) string; cut between batches: a clean end, as op-node's EOF.
      expect([undefined, DerivationCodecErrorCode.MALFORMED_BATCH_STREAM]).toContain(r.error?.code);
    }
    expect(last).toBeGreaterThan(0);
    expect(last).toBeLessThan(many.length);
  });

  it("keep the batches before a corrupt block and report the corruption", async () => {
    const many = Array.from({ length: 40 }, (_, i) => singular(i, 4000));
    const channel = new Uint8Array(deflateSync(encodeBatchStream(many), { level: 0 }));
    const firstBlockLen = channel[3]! | (channel[4]! << 8);
    channel[2 + 5 + firstBlockLen + 3]! ^= 0xff;
    const r = await readChannel(channel, { fjord: false });
    expect(r.error?.code).toBe(DerivationCodecErrorCode.CORRUPT_COMPRESSION);
    expect(hexes(r.batches)).toEqual(hexes(many.slice(0, r.batches.length)));
    expect(r.consumedBytes).toBeGreaterThan(firstBlockLen - CHANNEL_DECOMPRESS_CHUNK_BYTES - 4100);
  });

  it("read batches ending exactly at MAX_RLP_BYTES_PER_CHANNEL; one byte more and the last batch is cut", async () => {
    const limit = MAX_RLP_BYTES_PER_CHANNEL_BEDROCK;
    const first = item(singular(1));
    /** A batch whose item makes the stream exactly `total` bytes. */
    const filler = (total: number) => {
      let txBytes = total - first.length - 100;
      for (;;) {
        const len = first.length + item(singular(2, txBytes)).length;
        if (len === total) return singular(2, txBytes);
        txBytes += total - len;
      }
    };
    const junk = new Uint8Array(64).fill(0x80);
    const exact = compressChannel(joinBytes([encodeBatchStream([singular(1), filler(limit)]), junk]), { compression: "zlib", level: 1 });
    const atLimit = await readChannel(exact, { fjord: false });
    expect(atLimit.batches).toHaveLength(2);
    expect(atLimit.consumedBytes).toBe(limit);
    expect(atLimit.error?.code).toBe(DerivationCodecErrorCode.CHANNEL_LIMIT);
    const over = compressChannel(joinBytes([encodeBatchStream([singular(1), filler(limit + 1)]), junk]), { compression: "zlib", level: 1 });
    const pastLimit = await readChannel(over, { fjord: false });
    expect(pastLimit.batches).toHaveLength(1);
    expect(pastLimit.error?.code).toBe(DerivationCodecErrorCode.CHANNEL_LIMIT);
  });

  it("keep the batches before a decompression bomb and stop it one chunk past the limit", async () => {
    // A batch, then a string claiming 200 MiB of zeros: streamed into the compressor, never held whole.
    const z = createDeflate({ level: 9 });
    const parts: Buffer[] = [];
    z.on("data", (c: Buffer) => parts.push(c));
    const done = once(z, "end");
    const total = 200 * 1024 * 1024;
    z.write(joinBytes([item(singular(7)), Uint8Array.of(0xbc, total >>> 24, (total >>> 16) & 0xff, (total >>> 8) & 0xff, total & 0xff)]));
    const zeros = Buffer.alloc(1 << 20);
    for (let i = 0; i < 200; i++) if (!z.write(zeros)) await once(z, "drain");
    z.end();
    await done;
    const r = await readChannel(new Uint8Array(Buffer.concat(parts)), { fjord: false });
    expect(hexes(r.batches)).toEqual(hexes([singular(7)]));
    expect(r.error?.code).toBe(DerivationCodecErrorCode.CHANNEL_LIMIT);
    expect(r.decompressedBytes).toBe(MAX_RLP_BYTES_PER_CHANNEL_BEDROCK);
    expect(r.producedBytes).toBeLessThanOrEqual(MAX_RLP_BYTES_PER_CHANNEL_BEDROCK + CHANNEL_DECOMPRESS_CHUNK_BYTES);
  });
});
