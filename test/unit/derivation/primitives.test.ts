/**
 * The span batch primitives: uvarints (Go `encoding/binary` semantics), bitlists (vectors from
 * op-node `span_batch_util_test.go` and kona `batch/bits.rs` tests) and strict RLP reading.
 */
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { codecError } from "../../helpers/derivation.js";
import { Bitlist, readBitlist } from "../../../src/derivation/bitlist.js";
import { DerivationCodecErrorCode, malformedSpanBatch } from "../../../src/derivation/codecErrors.js";
import { rlpItem, rlpListItems, rlpUint } from "../../../src/derivation/rlp.js";
import { encodeUvarint, readUvarint } from "../../../src/derivation/varint.js";

const fail = (reason: string) => malformedSpanBatch("test", reason);


/** A bitlist of `length` bits holding `value` (bit i = bit i of the integer), as op-node's big.Int. */
function bitsOf(length: number, value: bigint): Bitlist {
  const b = new Bitlist(length);
  for (let i = 0; i < length; i++) b.set(i, ((value >> BigInt(i)) & 1n) === 1n);
  return b;
}

describe("uvarint", () => {
  it.each([
    [0n, "0x00"],
    [1n, "0x01"],
    [127n, "0x7f"],
    [128n, "0x8001"],
    [300n, "0xac02"],
    [16_384n, "0x808001"],
    [20_089_770n, "0xaa97ca09"],
    [2n ** 53n - 1n, "0xffffffffffffff0f"],
    [2n ** 53n, "0x8080808080808010"],
    [2n ** 64n - 1n, "0xffffffffffffffffff01"],
  ])("%s encodes to %s and back", (v, hex) => {
    expect(bytesToHex(encodeUvarint(v))).toBe(hex);
    const buf = hexToBytes(hex as `0x${string}`);
    expect(readUvarint(buf, 0, buf.length, fail)).toEqual({ value: v, next: buf.length });
  });

  it("accepts non-minimal encodings as Go's binary.ReadUvarint does (kona's decoder refuses them)", () => {
    const buf = hexToBytes("0x8000");
    expect(readUvarint(buf, 0, 2, fail)).toEqual({ value: 0n, next: 2 });
    const long = hexToBytes("0x81808080808080808000");
    expect(readUvarint(long, 0, long.length, fail)).toEqual({ value: 1n, next: 10 });
  });

  it("refuses a 10th byte above 1, an 11-byte varint, and truncation", () => {
    for (const hex of ["0xffffffffffffffffff02", "0x8080808080808080808001"]) {
      const buf = hexToBytes(hex as `0x${string}`);
      expect(codecError(() => readUvarint(buf, 0, buf.length, fail)).message).toContain("overflows a 64-bit integer");
    }
    expect(codecError(() => readUvarint(hexToBytes("0x8080"), 0, 2, fail)).message).toContain("truncated");
    expect(codecError(() => readUvarint(new Uint8Array(0), 0, 0, fail)).message).toContain("varint was expected");
  });

  it("refuses to encode a value outside u64", () => {
    expect(codecError(() => encodeUvarint(2n ** 64n)).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
    expect(codecError(() => encodeUvarint(-1)).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
  });
});

describe("bitlist", () => {
  // op-node span_batch_util_test.go TestEncodeSpanBatchBits / TestSpanBatchBitsRoundTrip.
  it.each([
    [8, 0xaan, "0xaa"],
    [5, 21n, "0x15"],
    [8, 0n, "0x00"],
    [0, 0n, "0x"],
    [8, 0xffn, "0xff"],
    [16, 0xbeefn, "0xbeef"],
    [1, 1n, "0x01"],
    [1, 0n, "0x00"],
    [13, 0x1fffn, "0x1fff"],
    [24, 0x010001n, "0x010001"],
  ])("%i bits of %s encode to %s and decode back", (length, value, hex) => {
    const bits = bitsOf(length, value);
    expect(bytesToHex(bits.bytes)).toBe(hex);
    const buf = hexToBytes(hex as `0x${string}`);
    const read = readBitlist(buf, 0, buf.length, length, "bits", fail);
    expect(read.next).toBe(buf.length);
    for (let i = 0; i < length; i++) expect(read.bits.get(i)).toBe(bits.get(i));
  });

  // op-node TestDecodeSpanBatchBits.
  it("decodes 0x14 as 5 bits, 0x0102 as 16 bits; refuses short input and 0x80 for 3 bits", () => {
    const five = readBitlist(hexToBytes("0x14"), 0, 1, 5, "bits", fail).bits;
    expect([0, 1, 2, 3, 4].map((i) => five.get(i))).toEqual([false, false, true, false, true]);
    const sixteen = readBitlist(hexToBytes("0x0102"), 0, 2, 16, "bits", fail).bits;
    expect(sixteen.get(1)).toBe(true);
    expect(sixteen.get(8)).toBe(true);
    expect(sixteen.popcount()).toBe(2);
    expect(codecError(() => readBitlist(hexToBytes("0x01"), 0, 1, 16, "bits", fail)).code).toBe(DerivationCodecErrorCode.MALFORMED_SPAN_BATCH);
    const tooLong = codecError(() => readBitlist(hexToBytes("0x80"), 0, 1, 3, "origin_bits", fail));
    expect(tooLong.code).toBe(DerivationCodecErrorCode.BITLIST_TOO_LONG);
    expect(tooLong.meta).toEqual({ field: "origin_bits", bitLength: 3, highestSetBit: 7 });
  });

  it("refuses any set bit beyond the length, accepts the highest one within it", () => {
    expect(readBitlist(hexToBytes("0x0400"), 0, 2, 11, "b", fail).bits.get(10)).toBe(true);
    expect(codecError(() => readBitlist(hexToBytes("0x0800"), 0, 2, 11, "b", fail)).meta).toMatchObject({ highestSetBit: 11 });
  });

  // kona batch/bits.rs bitlist_big_endian_zero_extended and test_static_set_get_bits_span_bitlist.
  it("puts bit i in bit (i mod 8) of byte len-1-floor(i/8)", () => {
    const a = new Bitlist(16);
    for (const i of [1, 6, 8, 15]) a.set(i, true);
    expect(bytesToHex(a.bytes)).toBe("0x8142");
    const b = new Bitlist(18);
    for (const i of [0, 1, 2, 4, 7, 17]) b.set(i, true);
    expect(bytesToHex(b.bytes)).toBe("0x020097");
    expect([0, 1, 2, 3, 4, 17, 32].map((i) => b.get(i))).toEqual([true, true, true, false, true, true, false]);
    expect(b.popcount()).toBe(6);
    expect(Bitlist.from([true, false, true]).bytes).toEqual(Uint8Array.of(0b101));
  });
});

describe("strict RLP reading (go-ethereum's canonical rules)", () => {
  it.each([
    ["0x8100", "single byte below 0x80 with a header"],
    ["0x817f", "single byte below 0x80 with a header"],
    ["0xb801ff", "long form for 1 bytes"],
    ["0xb90001ff", "leading zero byte"],
    ["0xf837", "long form for 55 bytes"],
    ["0x83aabb", "declares 3 bytes but 2 remain"],
    ["0xb9", "runs past the input"],
  ])("refuses %s (%s)", (hex, reason) => {
    const buf = hexToBytes(hex as `0x${string}`);
    expect(codecError(() => rlpItem(buf, 0, buf.length, fail)).message).toContain(reason);
  });

  it("refuses integers with a leading zero byte or over their size, and lists of the wrong length", () => {
    const int = hexToBytes("0x820001");
    expect(codecError(() => rlpUint(int, rlpItem(int, 0, 3, fail), fail, "n")).message).toContain("non-canonical integer");
    const zero = hexToBytes("0x00");
    expect(codecError(() => rlpUint(zero, rlpItem(zero, 0, 1, fail), fail, "n")).message).toContain("non-canonical integer");
    const nine = hexToBytes("0x89010000000000000000");
    expect(codecError(() => rlpUint(nine, rlpItem(nine, 0, nine.length, fail), fail, "n", 8)).message).toContain("more than 8");
    const list = hexToBytes("0xc3010203");
    expect(rlpListItems(list, rlpItem(list, 0, 4, fail), fail, "l", 3)).toHaveLength(3);
    expect(codecError(() => rlpListItems(list, rlpItem(list, 0, 4, fail), fail, "l", 2)).message).toContain("more than 2 elements");
    expect(codecError(() => rlpListItems(list, rlpItem(list, 0, 4, fail), fail, "l", 4)).message).toContain("3 elements, expected 4");
  });
});
