/**
 * `TransactionDeposited` logs: decoding into deposit transactions (the vectors and error cases of
 * kona crates/protocol/protocol/src/deposits.rs tests, op-rs/kona@cdb9be2), the op-node
 * deposit_log_test.go round trip (seeded random deposits through the encoder and back), and the
 * strict ABI rules of both nodes.
 */
import { Address } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import {
  decodeDepositLog,
  DepositLogError,
  DepositLogErrorCode,
  encodeDepositLog,
  isTransactionDepositedLog,
  TRANSACTION_DEPOSITED_TOPIC_BYTES,
  type DepositLogFields,
} from "../../../../src/chain/op/depositLog.js";
import { DepositTransaction } from "../../../../src/chain/op/depositTx.js";
import { userDepositSourceHash } from "../../../../src/chain/op/sourceHash.js";
import type { Log } from "../../../../src/storage/types.js";
import { fromHex, to0x } from "../../../../src/util/bytes.js";

const ZERO32: Uint8Array = new Uint8Array(32);
const PORTAL = fromHex("0x49048044d57e1c92a77f79988d21fa8faf74e97e");

function word(v: bigint): Uint8Array {
  return fromHex("0x" + v.toString(16).padStart(64, "0"));
}

function addressTopic(hex: string): Uint8Array {
  const out = new Uint8Array(32);
  out.set(fromHex(hex), 12);
  return out;
}

/** A deposit log with kona's layout: `data` of `size` bytes with offset 32 and length `len` written as u64s. */
function konaData(size: number, len: bigint): Uint8Array {
  const data = new Uint8Array(size);
  data.set(word(32n), 0);
  data.set(word(len), 32);
  return data;
}

/** kona's "full" opaque data: mint 10 (low 16 bytes of the word), value 100, gas 1000, isCreation 1. */
function konaFullData(len: bigint): Uint8Array {
  const data = konaData(192, len);
  data.set(word(10n).subarray(16), 80);
  data.set(word(100n), 96);
  data.set(word(1000n).subarray(24), 128);
  data[136] = 1;
  return data;
}

function log(topics: Uint8Array[], data: Uint8Array): Log {
  return { address: new Uint8Array(20), topics, data };
}

const DEPOSIT_TOPICS = (from: Uint8Array = ZERO32, to: Uint8Array = ZERO32, version: Uint8Array = ZERO32): Uint8Array[] => [TRANSACTION_DEPOSITED_TOPIC_BYTES, from, to, version];

function errorOf(fn: () => unknown): DepositLogError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DepositLogError) return e;
    throw e;
  }
  throw new Error("expected a DepositLogError");
}

describe("decodeDepositLog: kona deposits.rs vectors", () => {
  it("test_decode_deposit_empty_succeeds: all-zero opaque data, to kept", () => {
    const from = fromHex("0x000000000000000000000000ffffffffffffffffffffffffffffffffffffffff");
    const to = fromHex("0x000000000000000000000000bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    const tx = decodeDepositLog(log(DEPOSIT_TOPICS(from, to), konaData(192, 128n)), ZERO32, 0);
    expect(to0x(tx.serialize())).toBe(
      "0x7ef887a0ed428e1c45e1d9561b62834e1a2d3015a0caae3bfdc16b4da059ac885b01a14594ffffffffffffffffffffffffffffffffffffffff94bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb80808080b700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    );
    expect(tx.to?.toString()).toBe("0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    expect(tx.data.length).toBe(128 - 73);
  });

  it("test_decode_deposit_full_succeeds: mint 10, value 100, gas 1000, creation", () => {
    const from = addressTopic("0x1111111111111111111111111111111111111111");
    const to = addressTopic("0x2222222222222222222222222222222222222222");
    const tx = decodeDepositLog(log(DEPOSIT_TOPICS(from, to), konaFullData(128n)), ZERO32, 0);
    expect(to0x(tx.serialize())).toBe(
      "0x7ef875a0ed428e1c45e1d9561b62834e1a2d3015a0caae3bfdc16b4da059ac885b01a145941111111111111111111111111111111111111111800a648203e880b700000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
    );
    expect(tx.to).toBeUndefined();
    expect([tx.mint, tx.value, tx.gasLimit, tx.isSystemTx]).toEqual([10n, 100n, 1000n, false]);
    // Source hash: user-deposit domain over (zero block hash, log index 0).
    expect(to0x(tx.sourceHash)).toBe("0xed428e1c45e1d9561b62834e1a2d3015a0caae3bfdc16b4da059ac885b01a145");
  });

  it("the source hash follows the L1 block hash and the block-level log index", () => {
    const blockHash = fromHex("0x" + "ab".repeat(32));
    const tx = decodeDepositLog(log(DEPOSIT_TOPICS(), konaFullData(128n)), blockHash, 7);
    expect(tx.sourceHash).toEqual(userDepositSourceHash(blockHash, 7));
  });

  it.each([
    ["test_decode_deposit_invalid_first_topic", log([ZERO32, ZERO32, ZERO32, ZERO32], new Uint8Array(0)), DepositLogErrorCode.NOT_DEPOSIT_EVENT],
    ["test_decode_deposit_incomplete_data", log(DEPOSIT_TOPICS(), new Uint8Array(63)), DepositLogErrorCode.DATA_TOO_SHORT],
    ["test_decode_deposit_unaligned_data", log(DEPOSIT_TOPICS(), new Uint8Array(65)), DepositLogErrorCode.DATA_UNALIGNED],
    ["test_decode_deposit_invalid_from", log(DEPOSIT_TOPICS(new Uint8Array(32).fill(0xff)), new Uint8Array(64)), DepositLogErrorCode.BAD_ADDRESS_TOPIC],
    ["test_decode_deposit_invalid_to", log(DEPOSIT_TOPICS(ZERO32, new Uint8Array(32).fill(0xff)), new Uint8Array(64)), DepositLogErrorCode.BAD_ADDRESS_TOPIC],
    ["test_decode_deposit_invalid_opaque_data_offset", log(DEPOSIT_TOPICS(), new Uint8Array(64)), DepositLogErrorCode.BAD_OFFSET],
    // kona: InvalidOpaqueDataLength { expected: 128, actual: 64 }.
    ["test_decode_deposit_opaque_data_overflow", log(DEPOSIT_TOPICS(), konaData(128, 128n)), DepositLogErrorCode.BAD_LENGTH],
    // kona: UnexpectedOpaqueDataLen(64) (it allows extra padding); op-node (and basalt) reject the non-minimal padding first.
    ["test_decode_deposit_padded_overflow", log(DEPOSIT_TOPICS(), konaData(256, 64n)), DepositLogErrorCode.BAD_LENGTH],
    ["test_decode_deposit_invalid_version", log(DEPOSIT_TOPICS(ZERO32, ZERO32, word(1n)), konaData(128, 64n)), DepositLogErrorCode.UNSUPPORTED_VERSION],
    // kona: OpaqueContentOverflow (length u128::MAX at bytes [48,64)).
    ["test_decode_deposit_invalid_length", log(DEPOSIT_TOPICS(), (() => { const d = konaData(128, 0n); d.fill(0xff, 48, 64); return d; })()), DepositLogErrorCode.BAD_LENGTH],
    // kona: InvalidOpaqueDataOffset (offset u128::MAX at bytes [16,32)).
    ["test_decode_deposit_invalid_offset", log(DEPOSIT_TOPICS(), (() => { const d = konaData(128, 128n); d.fill(0xff, 16, 32); return d; })()), DepositLogErrorCode.BAD_OFFSET],
    // kona: InvalidOpaqueDataLength { expected: 129, actual: 128 }.
    ["test_invalid_opaque_data_length", log(DEPOSIT_TOPICS(), konaFullData(129n)), DepositLogErrorCode.BAD_LENGTH],
    // kona: OpaqueDataPaddingOverflow (length u64::MAX).
    ["test_opaque_data_padding_overflow", log(DEPOSIT_TOPICS(), konaFullData((1n << 64n) - 1n)), DepositLogErrorCode.BAD_LENGTH],
    // kona: InvalidOpaqueDataPadding (length 127, last byte 1).
    ["test_invalid_opaque_data_padding", log(DEPOSIT_TOPICS(), (() => { const d = konaFullData(127n); d[191] = 1; return d; })()), DepositLogErrorCode.BAD_PADDING],
  ])("%s", (_name, l, code) => {
    expect(errorOf(() => decodeDepositLog(l, ZERO32, 0)).code).toBe(code);
  });

  it("test_decode_deposit_invalid_first_topic also fails a log with the wrong topic count", () => {
    const e = errorOf(() => decodeDepositLog(log([TRANSACTION_DEPOSITED_TOPIC_BYTES], new Uint8Array(0)), ZERO32, 0));
    expect(e.code).toBe(DepositLogErrorCode.TOPIC_COUNT);
    expect(e.type).toEqual({ code: DepositLogErrorCode.TOPIC_COUNT, topics: 1 });
  });

  it("test_unmarshal_deposit_version0_invalid_len: opaque data needs 73 bytes", () => {
    const short = errorOf(() => decodeDepositLog(log(DEPOSIT_TOPICS(), konaData(64 + 96, 72n)), ZERO32, 0));
    expect(short.type).toEqual({ code: DepositLogErrorCode.OPAQUE_DATA_TOO_SHORT, length: 72 });
    const ok = decodeDepositLog(log(DEPOSIT_TOPICS(), konaData(64 + 96, 73n)), ZERO32, 0);
    expect(ok.data.length).toBe(0);
  });

  it("op-node minimal padding: one spare zero word after the content is rejected", () => {
    // 128 bytes of content would fit in 192 bytes of data; 224 bytes leaves a whole extra word.
    const e = errorOf(() => decodeDepositLog(log(DEPOSIT_TOPICS(), konaData(224, 128n)), ZERO32, 0));
    expect(e.type).toEqual({ code: DepositLogErrorCode.BAD_LENGTH, length: "128", available: 160 });
  });

  it("reads mint as the full uint256 (op-node, specs), not only its low 128 bits (kona)", () => {
    const data = konaFullData(128n);
    data[64] = 1; // the top byte of the mint word
    const tx = decodeDepositLog(log(DEPOSIT_TOPICS(), data), ZERO32, 0);
    expect(tx.mint).toBe((1n << 248n) + 10n);
  });

  it("isTransactionDepositedLog looks at topic 0 only", () => {
    expect(isTransactionDepositedLog(log(DEPOSIT_TOPICS(), new Uint8Array(0)))).toBe(true);
    expect(isTransactionDepositedLog(log([ZERO32], new Uint8Array(0)))).toBe(false);
    expect(isTransactionDepositedLog(log([], new Uint8Array(0)))).toBe(false);
  });
});

/** A small deterministic PRNG (xorshift32) for the op-node style random round trip. */
function rng(seed: number): (n: number) => Uint8Array {
  let x = seed >>> 0 || 1;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[i] = x & 0xff;
    }
    return out;
  };
}

function big(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(to0x(b));
}

describe("encodeDepositLog ↔ decodeDepositLog (op-node deposit_log_test.go TestUnmarshalLogEvent)", () => {
  for (let i = 0; i < 100; i++) {
    it(`random deposit ${i} round trips`, () => {
      const r = rng(1234 + i);
      const blockHash = r(32);
      const logIndex = big(r(2)) % 10_000n;
      const creation = r(1)[0]! < 64;
      const fields: DepositLogFields = {
        from: new Address(r(20)),
        to: creation ? undefined : new Address(r(20)),
        mint: r(1)[0]! < 128 ? 0n : big(r(16)),
        value: big(r(32)),
        gasLimit: big(r(8)),
        data: r(Number(big(r(1))) * 3),
      };
      const l = encodeDepositLog(fields, PORTAL);
      expect(l.address).toEqual(PORTAL);
      expect(l.data.length % 32).toBe(0);
      const tx = decodeDepositLog(l, blockHash, logIndex);
      const expected = new DepositTransaction({ ...fields, sourceHash: userDepositSourceHash(blockHash, logIndex), isSystemTx: false });
      expect(to0x(tx.serialize())).toBe(to0x(expected.serialize()));
    });
  }

  it("encodes kona's full vector back to its log", () => {
    const from = addressTopic("0x1111111111111111111111111111111111111111");
    const original = log(DEPOSIT_TOPICS(from, ZERO32), konaFullData(128n));
    const tx = decodeDepositLog(original, ZERO32, 0);
    const l = encodeDepositLog(tx, PORTAL);
    // kona's vector carries 55 bytes of zero calldata in 128 bytes of opaque data: the same log.
    expect(l.topics.map(to0x)).toEqual(original.topics.map(to0x));
    expect(to0x(l.data)).toBe(to0x(original.data));
  });

  it("rejects values that do not fit their fields", () => {
    const base: DepositLogFields = { from: new Address(new Uint8Array(20)), mint: 0n, value: 0n, gasLimit: 0n, data: new Uint8Array(0) };
    expect(errorOf(() => encodeDepositLog({ ...base, gasLimit: 1n << 64n }, PORTAL)).type).toEqual({
      code: DepositLogErrorCode.VALUE_OUT_OF_RANGE,
      field: "gasLimit",
      value: (1n << 64n).toString(),
    });
    expect(errorOf(() => encodeDepositLog({ ...base, mint: 1n << 256n }, PORTAL)).code).toBe(DepositLogErrorCode.VALUE_OUT_OF_RANGE);
    expect(errorOf(() => encodeDepositLog({ ...base, value: -1n }, PORTAL)).code).toBe(DepositLogErrorCode.VALUE_OUT_OF_RANGE);
  });
});
