/**
 * Channel (de)compression: detection, the zlib header rules of Go's reader, the brotli/Fjord gate,
 * `MAX_RLP_BYTES_PER_CHANNEL` (decompression bombs are cut off one output chunk past it — checked
 * through the decompressor's own byte counter), truncated and corrupt streams. The tiny brotli
 * vector is kona's `brotli.rs` `test_decompress_brotli`.
 */
import { once } from "node:events";
import type { Transform } from "node:stream";
import { constants as zc, createBrotliCompress, createDeflate, deflateRawSync, deflateSync } from "node:zlib";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { CHANNEL_DECOMPRESS_CHUNK_BYTES, MAX_RLP_BYTES_PER_CHANNEL_BEDROCK, MAX_RLP_BYTES_PER_CHANNEL_FJORD } from "../../../src/derivation/constants.js";
import { channelCompressionOf, compressChannel, decompressChannel } from "../../../src/derivation/channelCompression.js";
import { DerivationCodecError, DerivationCodecErrorCode } from "../../../src/derivation/codecErrors.js";

/** Deterministic bytes that compress to about half (xorshift noise, every other 256-byte run repeated). */
function sample(n: number, seed = 1): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    if ((i >> 8) % 2 === 1) {
      out[i] = out[i - 256]!;
      continue;
    }
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** `total` zero bytes (after `prefix`) through a streaming compressor, 1 MiB at a time: never held whole. */
async function compressStreamed(z: Transform, total: number, prefix?: Uint8Array): Promise<Uint8Array> {
  const out: Buffer[] = [];
  z.on("data", (c: Buffer) => out.push(c));
  const done = once(z, "end");
  if (prefix) z.write(prefix);
  const chunk = Buffer.alloc(1 << 20);
  for (let left = total; left > 0; left -= chunk.length) {
    if (!z.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await once(z, "drain");
  }
  z.end();
  await done;
  return new Uint8Array(Buffer.concat(out));
}

const isPrefixOf = (a: Uint8Array, b: Uint8Array) => a.length <= b.length && bytesToHex(a) === bytesToHex(b.subarray(0, a.length));

describe("compression detection", () => {
  it.each([
    [0x78, "zlib"],
    [0x08, "zlib"],
    [0x0f, "zlib"],
    [0x58, "zlib"],
    [0x01, "brotli"],
    [0x00, undefined],
    [0x02, undefined],
    [0x11, undefined],
    [0x1b, undefined],
    [0xf0, undefined],
    [0xff, "zlib"],
  ])("first byte %i names %s", (b, c) => {
    expect(channelCompressionOf(b)).toBe(c);
  });

  it("reports an empty channel and an unknown first byte, with no data", async () => {
    const empty = await decompressChannel(new Uint8Array(0), { fjord: true });
    expect(empty.error?.code).toBe(DerivationCodecErrorCode.CHANNEL_EMPTY);
    expect(empty.data.length).toBe(0);
    const unknown = await decompressChannel(Uint8Array.of(0x02, 1, 2, 3), { fjord: true });
    expect(unknown.compression).toBeUndefined();
    expect(unknown.error?.code).toBe(DerivationCodecErrorCode.UNKNOWN_COMPRESSION);
    expect(unknown.error?.meta).toEqual({ firstByte: 2 });
  });
});

describe("zlib channels", () => {
  it("round-trip; the batcher writes op-batcher's best-compression header 78 da", async () => {
    const src = sample(300_000);
    const channel = compressChannel(src, { compression: "zlib" });
    expect(bytesToHex(channel.subarray(0, 2))).toBe("0x78da");
    for (const fjord of [false, true]) {
      const d = await decompressChannel(channel, { fjord });
      expect(d.error).toBeUndefined();
      expect(d.compression).toBe("zlib");
      expect(d.limit).toBe(fjord ? MAX_RLP_BYTES_PER_CHANNEL_FJORD : MAX_RLP_BYTES_PER_CHANNEL_BEDROCK);
      expect(bytesToHex(d.data)).toBe(bytesToHex(src));
      expect(d.producedBytes).toBe(src.length);
    }
  });

  // Go's zlib.NewReader: method 8 only, window ≤ 32 KiB, FCHECK, no preset dictionary.
  it.each([
    ["a 1-byte channel", "0x78", "truncated"],
    ["method 15 (passes detection, no reader takes it)", "0x7f07", "compression method 15"],
    ["window field 8", "0x881c", "window size field 8"],
    ["bad check bits", "0x7800", "multiple of 31"],
    ["a preset dictionary", "0x78bb00000000", "preset dictionary"],
  ])("refuses %s", async (_name, hex, reason) => {
    const d = await decompressChannel(hexToBytes(hex as `0x${string}`), { fjord: false });
    expect(d.compression).toBe("zlib");
    expect(d.error?.code).toBe(DerivationCodecErrorCode.BAD_ZLIB_HEADER);
    expect(d.error?.message).toContain(reason);
    expect(d.data.length).toBe(0);
  });

  it("accepts a smaller window (78 → 28) and ignores the Adler-32 trailer and bytes after it, as Go reads them", async () => {
    const src = sample(5_000);
    const body = deflateRawSync(src);
    const small = Uint8Array.of(0x28, 0x15, ...body);
    expect(((0x28 << 8) | 0x15) % 31).toBe(0);
    expect((await decompressChannel(small, { fjord: false })).data).toEqual(src);
    const good = deflateSync(src);
    const badSum = Uint8Array.from(good);
    badSum[badSum.length - 1] ^= 0xff;
    const garbage = Uint8Array.of(...good, 0xde, 0xad, 0xbe, 0xef);
    for (const c of [badSum, garbage]) {
      const d = await decompressChannel(c, { fjord: false });
      expect(d.error).toBeUndefined();
      expect(d.data).toEqual(src);
    }
  });

  it("yields every byte a truncated stream decodes, without an error", async () => {
    const src = sample(200_000);
    const channel = compressChannel(src, { compression: "zlib" });
    let last = -1;
    for (const keep of [2, 100, channel.length >> 2, channel.length >> 1, channel.length - 5]) {
      const d = await decompressChannel(channel.subarray(0, keep), { fjord: false });
      expect(d.error).toBeUndefined();
      expect(isPrefixOf(d.data, src)).toBe(true);
      expect(d.data.length).toBeGreaterThanOrEqual(last);
      last = d.data.length;
    }
    expect(last).toBeGreaterThan(src.length / 2);
  });

  it("stops at corrupt data with a typed error, keeping the output before it (within one output chunk)", async () => {
    // Stored blocks (level 0): breaking the second block's NLEN is a certain, placed corruption.
    const src = sample(150_000);
    const channel = new Uint8Array(deflateSync(src, { level: 0 }));
    const firstBlockLen = channel[3]! | (channel[4]! << 8);
    const secondHeader = 2 + 5 + firstBlockLen;
    channel[secondHeader + 3]! ^= 0xff;
    const d = await decompressChannel(channel, { fjord: false });
    expect(d.error?.code).toBe(DerivationCodecErrorCode.CORRUPT_COMPRESSION);
    expect(d.error?.meta).toMatchObject({ compression: "zlib", decompressedBytes: d.data.length });
    expect(isPrefixOf(d.data, src)).toBe(true);
    expect(d.data.length).toBeGreaterThanOrEqual(firstBlockLen - CHANNEL_DECOMPRESS_CHUNK_BYTES);
    expect(d.data.length).toBeLessThanOrEqual(firstBlockLen);
  });

  it("keeps exactly MAX_RLP_BYTES_PER_CHANNEL bytes: a channel of that size is whole, one byte more is cut", async () => {
    const limit = MAX_RLP_BYTES_PER_CHANNEL_BEDROCK;
    const exact = await decompressChannel(compressChannel(new Uint8Array(limit), { compression: "zlib", level: 1 }), { fjord: false });
    expect(exact.error).toBeUndefined();
    expect(exact.data.length).toBe(limit);
    const over = await decompressChannel(compressChannel(new Uint8Array(limit + 1), { compression: "zlib", level: 1 }), { fjord: false });
    expect(over.error?.code).toBe(DerivationCodecErrorCode.CHANNEL_LIMIT);
    expect(over.error?.meta).toEqual({ limit });
    expect(over.data.length).toBe(limit);
  });

  it("cuts a 200 MiB zlib bomb at 10 MB: the decompressor stops within one chunk of the limit", async () => {
    const total = 200 * 1024 * 1024;
    const bomb = await compressStreamed(createDeflate({ level: 9 }), total);
    expect(bomb.length).toBeLessThan(MAX_RLP_BYTES_PER_CHANNEL_BEDROCK / 10);
    const d = await decompressChannel(bomb, { fjord: false });
    expect(d.error?.code).toBe(DerivationCodecErrorCode.CHANNEL_LIMIT);
    expect(d.data.length).toBe(MAX_RLP_BYTES_PER_CHANNEL_BEDROCK);
    expect(d.data.buffer.byteLength).toBe(MAX_RLP_BYTES_PER_CHANNEL_BEDROCK);
    expect(d.producedBytes).toBeGreaterThan(MAX_RLP_BYTES_PER_CHANNEL_BEDROCK);
    expect(d.producedBytes).toBeLessThanOrEqual(MAX_RLP_BYTES_PER_CHANNEL_BEDROCK + CHANNEL_DECOMPRESS_CHUNK_BYTES);
    expect(d.producedBytes).toBeLessThan(total / 20);
  });
});

describe("brotli channels (0x01 ++ brotli)", () => {
  it("decompress kona's test_decompress_brotli vector", async () => {
    const channel = hexToBytes("0x018b048075ed184249e9bc19675e03");
    const d = await decompressChannel(channel, { fjord: true });
    expect(d.error).toBeUndefined();
    expect(d.compression).toBe("brotli");
    expect(bytesToHex(d.data)).toBe("0x75ed184249e9bc19675e");
  });

  it("round-trip with the version byte 0x01", async () => {
    const src = sample(60_000, 7);
    const channel = compressChannel(src, { compression: "brotli" });
    expect(channel[0]).toBe(0x01);
    const d = await decompressChannel(channel, { fjord: true });
    expect(d.error).toBeUndefined();
    expect(d.data).toEqual(src);
  });

  it("are refused before Fjord, with nothing decompressed", async () => {
    const d = await decompressChannel(compressChannel(sample(1000), { compression: "brotli" }), { fjord: false });
    expect(d.compression).toBe("brotli");
    expect(d.error?.code).toBe(DerivationCodecErrorCode.BROTLI_BEFORE_FJORD);
    expect(d.data.length).toBe(0);
    expect(d.producedBytes).toBe(0);
  });

  it("yield every byte a truncated stream decodes", async () => {
    const src = sample(250_000, 3);
    const channel = compressChannel(src, { compression: "brotli" });
    const d = await decompressChannel(channel.subarray(0, channel.length >> 1), { fjord: true });
    expect(d.error).toBeUndefined();
    expect(isPrefixOf(d.data, src)).toBe(true);
    expect(d.data.length).toBeGreaterThan(0);
  });

  it("report a corrupt stream with a typed error", async () => {
    const d = await decompressChannel(Uint8Array.of(0x01, 0xff, 0xff, 0xff, 0xff, 0xff), { fjord: true });
    expect(d.error?.code).toBe(DerivationCodecErrorCode.CORRUPT_COMPRESSION);
    expect(d.error?.meta).toMatchObject({ compression: "brotli" });
  });

  it("cut a 110 MB brotli bomb at 100 MB (Fjord), within one chunk of the limit", async () => {
    const body = await compressStreamed(createBrotliCompress({ params: { [zc.BROTLI_PARAM_QUALITY]: 1 } }), 110_000_000);
    const d = await decompressChannel(Uint8Array.of(0x01, ...body), { fjord: true });
    expect(d.error?.code).toBe(DerivationCodecErrorCode.CHANNEL_LIMIT);
    expect(d.data.length).toBe(MAX_RLP_BYTES_PER_CHANNEL_FJORD);
    expect(d.producedBytes).toBeLessThanOrEqual(MAX_RLP_BYTES_PER_CHANNEL_FJORD + CHANNEL_DECOMPRESS_CHUNK_BYTES);
  });
});

describe("compressChannel input checks", () => {
  it("refuses out-of-range levels and unknown compressions", () => {
    for (const opts of [
      { compression: "zlib", level: 10 },
      { compression: "brotli", level: 12 },
      { compression: "lz4" },
    ] as const) {
      expect(() => compressChannel(new Uint8Array(1), opts as never)).toThrow(DerivationCodecError);
    }
  });
});

describe("streams with no body", () => {
  it("a zlib header alone and the brotli version byte alone decompress to nothing, without an error", async () => {
    for (const [channel, fjord] of [[Uint8Array.of(0x78, 0xda), false], [Uint8Array.of(0x01), true]] as const) {
      const d = await decompressChannel(channel, { fjord });
      expect(d.error).toBeUndefined();
      expect(d.data.length).toBe(0);
    }
  });
});
