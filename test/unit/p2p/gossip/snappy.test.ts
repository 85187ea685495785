/** Strict snappy block decoding (the rules of Go's golang/snappy Decode that op-node runs). */
import { describe, expect, it } from "vitest";
import { GossipCodecError } from "../../../../src/p2p/gossip/errors.js";
import { snappyCompress, snappyDecodedLength, snappyUncompress } from "../../../../src/p2p/gossip/snappy.js";

describe("snappy block format", () => {
  it("round-trips compressible and random data", () => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff;
    for (const n of [0, 1, 59, 60, 61, 300, 70_000]) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i % 3 === 0 ? rnd() : i % 7));
      expect(snappyUncompress(snappyCompress(data), n)).toEqual(data);
    }
  });

  it("decodes hand-written streams: literals with 1-byte lengths and overlapping copies", () => {
    // uvarint 9; literal tag (len−1)<<2 = 0x08 "abc"; copy1 len 6 offset 3: tag = ((6−4)<<2)|1 = 0x09, offset byte 3.
    expect(Buffer.from(snappyUncompress(Uint8Array.of(9, 0x08, 0x61, 0x62, 0x63, 0x09, 3), 9)).toString()).toBe("abcabcabc");
    // literal length 61 via the 1-byte extension (tag 60<<2), then 61 bytes.
    const lit = Uint8Array.from([61, 60 << 2, 60, ...new Uint8Array(61).fill(0x41)]);
    expect(snappyUncompress(lit, 61)).toEqual(new Uint8Array(61).fill(0x41));
  });

  it("rejects corrupt streams with a typed error", () => {
    const bad = [
      Uint8Array.of(), // no header
      Uint8Array.of(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), // header never ends within 10 bytes
      Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x1f), // 2^36 − 1: more than 32 bits
      Uint8Array.of(5, 0x08, 0x61, 0x62, 0x63), // output shorter than announced
      Uint8Array.of(2, 0x08, 0x61, 0x62, 0x63), // output longer than announced
      Uint8Array.of(9, 0x09, 3), // copy before any output
      Uint8Array.of(9, 0x08, 0x61, 0x62, 0x63, 0x09, 4), // copy offset past the start
      Uint8Array.of(9, 0x08, 0x61, 0x62, 0x63, 0x09), // copy truncated
      Uint8Array.of(9, 0x20, 0x61), // literal of 9 with 1 byte
      Uint8Array.of(9, 0x08, 0x61, 0x62, 0x63, 0x02, 3, 0), // copy2 with offset 3, length 1 → 4 bytes: short
    ];
    for (const b of bad) expect(() => snappyUncompress(b, 1 << 20), Buffer.from(b).toString("hex")).toThrow(GossipCodecError);
    // The limit is checked on the header, before any allocation.
    expect(() => snappyUncompress(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f), 1 << 20)).toThrow(/more than the limit/);
    expect(snappyDecodedLength(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f))).toEqual({ length: 0xffffffff, headerBytes: 5 });
  });
});
