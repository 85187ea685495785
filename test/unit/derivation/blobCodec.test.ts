/**
 * OP blob encoding v0 (src/derivation/blobCodec.ts).
 *
 * The table vectors are op-service's, byte for byte: ethereum-optimism/optimism
 * op-service/eth/blob_test.go `TestDecodeTestVectors`, `TestEncodeTestVectors`,
 * `TestBlobEncodeDecode`, `TestSmallBlobEncoding`, `TestBigBlobEncoding`,
 * `TestInvalidBlobDecoding`, `TestTooLongDataEncoding`, `TestExtraneousData` and the property of
 * `FuzzDetectNonBijectivity`. A vector's input is the first bytes of an otherwise zero blob.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BLOB_MAX_PAYLOAD_BYTES } from "../../../src/config/constants.js";
import { BLOB_BYTES } from "../../../src/chain/constants.js";
import { BlobError, BlobErrorCode, isInvalidBlobEncoding } from "../../../src/derivation/blobErrors.js";
import { decodeBlob, encodeBlob } from "../../../src/derivation/blobCodec.js";
import { seededRandom } from "../../helpers/random.js";

/** Bytes of a Go string literal's escapes (each char one byte). */
function bytes(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, "latin1"));
}

/** A blob starting with `prefix`, zero elsewhere. */
function blobWith(prefix: Uint8Array): Uint8Array {
  const b = new Uint8Array(BLOB_BYTES);
  b.set(prefix);
  return b;
}

/** The code of the BlobError `f` throws (fails the test when it throws something else or nothing). */
function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(BlobError);
    return (e as BlobError).code;
  }
  throw new Error("expected a BlobError");
}

/**
 * Asserts byte equality, cheaply (vitest's deep equality walks a 128 KiB array element by element):
 * on a difference, the lengths and the first differing offset.
 */
function expectBytes(got: Uint8Array, want: Uint8Array): void {
  if (Buffer.from(got).equals(want)) return;
  const at = got.findIndex((v, i) => v !== want[i]);
  expect({ length: got.length, firstDifference: at }).toEqual({ length: want.length, firstDifference: -1 });
}

const ff = (n: number): string => "\xff".repeat(n);

describe("decodeBlob: op-service TestDecodeTestVectors", () => {
  const cases: { name: string; input: string; output?: Uint8Array; err?: string }[] = [
    // an empty blob has version 0 and length 0, so is valid and decodes as empty output
    { name: "empty", input: "", output: new Uint8Array(0) },
    // len == 1: one zero byte
    { name: "length 1", input: "\x00\x00\x00\x00\x01", output: new Uint8Array(1) },
    // len == 130044 (0x01FBFC), max blob capacity: 130044 zero bytes
    { name: "max length 130044", input: "\x00\x00\x01\xFB\xFC", output: new Uint8Array(130_044) },
    // len == 130045 (0x01FBFD), greater than blob capacity: invalid
    { name: "length 130045", input: "\x00\x00\x01\xFB\xFD", err: BlobErrorCode.INVALID_LENGTH },
    // len == 10
    { name: "length 10", input: "\x00\x00\x00\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff", output: bytes("\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff") },
    // what should be 27 0xFF bytes
    { name: "27 0xff bytes", input: "\x00\x00\x00\x00\x1b" + ff(27), output: bytes(ff(27)) },
    // what should be 32 0xFF bytes: the high bits spill into byte 0 of elements 0 and 1
    { name: "32 0xff bytes", input: "\x3f\x00\x00\x00\x20" + ff(27) + "\x30" + ff(4), output: bytes(ff(32)) },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const blob = blobWith(bytes(c.input));
      if (c.err !== undefined) expect(codeOf(() => decodeBlob(blob))).toBe(c.err);
      else expectBytes(decodeBlob(blob), c.output!);
    });
  }
});

describe("encodeBlob: op-service TestEncodeTestVectors", () => {
  const cases: { name: string; input: Uint8Array; output?: string; err?: string }[] = [
    // empty (all zeros) blob
    { name: "empty", input: new Uint8Array(0), output: "" },
    // max input data
    { name: "max input 130044", input: new Uint8Array(BLOB_MAX_PAYLOAD_BYTES), output: "\x00\x00\x01\xfb\xfc" },
    // input data too big
    { name: "130045 bytes", input: new Uint8Array(BLOB_MAX_PAYLOAD_BYTES + 1), err: BlobErrorCode.PAYLOAD_TOO_LARGE },
    // 27 bytes each with high order bits set: fit in the first element with the version and length
    { name: "27 0xff bytes", input: bytes(ff(27)), output: "\x00\x00\x00\x00\x1b" + ff(27) },
    // 28 bytes each with high order bits set: high bits spill into byte 0 and the last byte
    { name: "28 0xff bytes", input: bytes(ff(28)), output: "\x3f\x00\x00\x00\x1c" + ff(27) + "\x30" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (c.err !== undefined) expect(codeOf(() => encodeBlob(c.input))).toBe(c.err);
      else expectBytes(encodeBlob(c.input), blobWith(bytes(c.output!)));
    });
  }

  it("refuses a payload the size of a whole blob (TestTooLongDataEncoding)", () => {
    expect(codeOf(() => encodeBlob(new Uint8Array(BLOB_BYTES)))).toBe(BlobErrorCode.PAYLOAD_TOO_LARGE);
  });
});

describe("round trips", () => {
  it("op-service TestBlobEncodeDecode cases", () => {
    const cases = ["this is a test of blob encoding/decoding", "short", "\x00", "\x00\x01\x00", "\x00".repeat(27), "\x00".repeat(26), "\x00".repeat(25), ""];
    for (const c of cases) expectBytes(decodeBlob(encodeBlob(bytes(c))), bytes(c));
  });

  it("op-service TestSmallBlobEncoding: a full first round, 10 bytes, 27 + 31·3 bytes", () => {
    for (const n of [128, 10, 27 + 31 * 3]) {
      const data = new Uint8Array(n);
      data[n - 1] = 0xff;
      expectBytes(decodeBlob(encodeBlob(data)), data);
    }
  });

  it("op-service TestBigBlobEncoding: random data of the maximum size, then each of its 255 shorter suffixes", () => {
    const rand = seededRandom(99);
    const big = Uint8Array.from({ length: BLOB_MAX_PAYLOAD_BYTES }, () => Math.floor(rand() * 256));
    expectBytes(decodeBlob(encodeBlob(big)), big);
    for (let i = 1; i < 256; i++) {
      const part = big.subarray(i);
      expectBytes(decodeBlob(encodeBlob(part)), part);
    }
  });

  it("random payloads of any length decode to themselves, and every encoded element keeps its two high bits clear", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: BLOB_MAX_PAYLOAD_BYTES, size: "max" }), (payload) => {
        const blob = encodeBlob(payload);
        for (let fe = 0; fe < BLOB_BYTES / 32; fe++) if ((blob[fe * 32]! & 0xc0) !== 0) expect.fail(`element ${fe} has a high bit set`);
        expectBytes(decodeBlob(blob), payload);
      }),
      { numRuns: 60, seed: 4844 },
    );
  });

  // The two high bits of byte 0 of element 0 are the one exception: masked, as the reference decoders do (last test).
  it("a flipped bit either fails decoding or decodes to other data (op-service FuzzDetectNonBijectivity)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4_000, size: "max" }), fc.nat(BLOB_BYTES - 1), fc.nat(7), (payload, at, bit) => {
        fc.pre(!(at === 0 && bit >= 6));
        const blob = encodeBlob(payload);
        blob[at]! ^= 1 << bit;
        let decoded: Uint8Array | undefined;
        try {
          decoded = decodeBlob(blob);
        } catch (e) {
          expect(isInvalidBlobEncoding(e)).toBe(true);
        }
        if (decoded !== undefined) expect(Buffer.from(decoded).equals(payload)).toBe(false);
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});

describe("invalid blobs", () => {
  it("op-service TestInvalidBlobDecoding: high bits of a field element, version, length", () => {
    const blob = encodeBlob(bytes("this is a test of invalid blob decoding"));
    blob[32] = 0b1000_0000; // field elements never have their highest bit set
    expect(codeOf(() => decodeBlob(blob))).toBe(BlobErrorCode.INVALID_FIELD_ELEMENT);
    blob[32] = 0b0100_0000; // nor their second highest
    expect(codeOf(() => decodeBlob(blob))).toBe(BlobErrorCode.INVALID_FIELD_ELEMENT);
    blob[32] = 0;
    blob[1] = 0x01; // invalid encoding version
    expect(codeOf(() => decodeBlob(blob))).toBe(BlobErrorCode.INVALID_VERSION);
    blob[1] = 0;
    blob[2] = 0xff; // much too long length prefix
    expect(codeOf(() => decodeBlob(blob))).toBe(BlobErrorCode.INVALID_LENGTH);
  });

  it("the high-bit check covers every decoded element, in later rounds too, and names it", () => {
    const blob = encodeBlob(new Uint8Array(1_000)); // 8 rounds, elements 0..31
    blob[29 * 32] = 0x80;
    try {
      decodeBlob(blob);
      expect.unreachable();
    } catch (e) {
      expect((e as BlobError).type).toEqual({ code: BlobErrorCode.INVALID_FIELD_ELEMENT, fieldElement: 29, byte: 0x80 });
    }
  });

  it("op-service TestExtraneousData: non-zero bytes after the payload, inside and past the decoded rounds", () => {
    // a 0-length blob with non-zero bits in byte 0 of element 0
    expect(codeOf(() => decodeBlob(blobWith(bytes("\x30\x00\x00\x00\x00"))))).toBe(BlobErrorCode.EXTRANEOUS_FIELD_ELEMENT_DATA);
    expect(codeOf(() => decodeBlob(blobWith(bytes("\x01\x00\x00\x00\x00"))))).toBe(BlobErrorCode.EXTRANEOUS_FIELD_ELEMENT_DATA);
    const blob = new Uint8Array(BLOB_BYTES);
    let i = 5;
    for (; i < 128; i++) {
      blob[i - 1] = 0;
      blob[i] = 0x01;
      expect(codeOf(() => decodeBlob(blob))).toBe(BlobErrorCode.EXTRANEOUS_FIELD_ELEMENT_DATA);
    }
    for (; i < BLOB_BYTES; i += 7) {
      blob[i - 1] = 0;
      blob[i] = 1;
      expect(codeOf(() => decodeBlob(blob))).toBe(BlobErrorCode.EXTRANEOUS_DATA);
    }
  });

  it("every invalid-encoding code is recognised as 'ignore the blob'; a wrong-size input is not one of them", () => {
    expect(isInvalidBlobEncoding(new BlobError({ code: BlobErrorCode.EXTRANEOUS_DATA, offset: 200, length: 0 }, "x"))).toBe(true);
    let err: unknown;
    try {
      decodeBlob(new Uint8Array(100));
    } catch (e) {
      err = e;
    }
    expect((err as BlobError).type).toEqual({ code: BlobErrorCode.WRONG_SIZE, what: "blob", expected: BLOB_BYTES, got: 100 });
    expect(isInvalidBlobEncoding(err)).toBe(false);
  });

  it("byte 0 of element 0 is read through & 0x3f, its high bits not checked, as op-service and kona decode", () => {
    const payload = bytes("same as the reference decoders");
    const blob = encodeBlob(payload);
    blob[0]! |= 0x40;
    expectBytes(decodeBlob(blob), payload);
  });
});
