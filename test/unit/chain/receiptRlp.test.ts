/**
 * The direct receipt encoder writes exactly the bytes @ethereumjs/rlp gives for the same fields,
 * for every shape: legacy and typed, success, failure and state roots, no logs to many logs with
 * 0–4 topics and data of every length class (short, single byte, ≥ 56 bytes, ≥ 256 bytes), and
 * the OP deposit nonce and version.
 */
import { RLP } from "@ethereumjs/rlp";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeReceiptFields, quantityBytes, type ReceiptFields } from "../../../src/chain/receiptRlp.js";

const bytes = (min: number, max: number): fc.Arbitrary<Uint8Array> => fc.uint8Array({ minLength: min, maxLength: max });
const log = fc.record({
  address: bytes(20, 20),
  topics: fc.array(bytes(32, 32), { maxLength: 4 }),
  data: fc.oneof(bytes(0, 2), bytes(0, 70), bytes(250, 300)),
});
const fields: fc.Arbitrary<ReceiptFields> = fc.record({
  type: fc.constantFrom(0, 1, 2, 3, 4, 0x7e),
  statusOrRoot: fc.oneof(fc.constant(Uint8Array.of(1)), fc.constant(new Uint8Array(0)), bytes(32, 32)),
  cumulativeGasUsed: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 2n ** 64n })),
  bloom: bytes(256, 256),
  logs: fc.array(log, { maxLength: 6 }),
  extra: fc.array(fc.bigInt({ min: 0n, max: 2n ** 64n }), { maxLength: 2 }),
});

function reference(r: ReceiptFields): Uint8Array {
  const body = RLP.encode([r.statusOrRoot, quantityBytes(r.cumulativeGasUsed), r.bloom, r.logs.map((l) => [l.address, l.topics, l.data]), ...r.extra.map(quantityBytes)] as never);
  return r.type === 0 ? body : Uint8Array.from([r.type, ...body]);
}

describe("receipt RLP writer", () => {
  it("equals @ethereumjs/rlp for random receipts", () => {
    fc.assert(
      fc.property(fields, (r) => {
        expect(Buffer.from(encodeReceiptFields(r)).toString("hex")).toBe(Buffer.from(reference(r)).toString("hex"));
      }),
      { numRuns: 500 },
    );
  });

  it("encodes a receipt whose log list is longer than 255 bytes with a two-byte length", () => {
    const r: ReceiptFields = {
      type: 2,
      statusOrRoot: Uint8Array.of(1),
      cumulativeGasUsed: 21_000n,
      bloom: new Uint8Array(256),
      logs: Array.from({ length: 20 }, () => ({ address: new Uint8Array(20).fill(1), topics: [new Uint8Array(32).fill(2)], data: new Uint8Array(64).fill(3) })),
      extra: [],
    };
    expect(Buffer.from(encodeReceiptFields(r)).equals(Buffer.from(reference(r)))).toBe(true);
  });
});
