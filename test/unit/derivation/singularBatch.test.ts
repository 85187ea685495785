/**
 * Singular batches (type 0) and the batch type dispatch: round trips, and the ways go-ethereum's
 * decoder into op-node's `SingularBatch` struct refuses input.
 */
import { RLP } from "@ethereumjs/rlp";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { codecError } from "../../helpers/derivation.js";
import { type Batch, decodeBatch, encodeBatch } from "../../../src/derivation/batch.js";
import { DerivationCodecErrorCode } from "../../../src/derivation/codecErrors.js";
import { type SingularBatch, decodeSingularBatch, encodeSingularBatch } from "../../../src/derivation/singularBatch.js";

const BATCH: SingularBatch = {
  parentHash: new Uint8Array(32).fill(0x11),
  epochNum: 20_089_770n,
  epochHash: new Uint8Array(32).fill(0x22),
  timestamp: 1_718_364_637n,
  transactions: [hexToBytes("0x02c0"), new Uint8Array(300).fill(7), new Uint8Array(0)],
};

const u64 = (v: bigint) => (v === 0n ? new Uint8Array(0) : hexToBytes(`0x${v.toString(16).padStart(Math.ceil(v.toString(16).length / 2) * 2, "0")}`));
/** The RLP of a singular batch from explicit fields (to build malformed ones). */
const fields = (b: SingularBatch) => [b.parentHash, u64(b.epochNum), b.epochHash, u64(b.timestamp), b.transactions] as unknown[];

describe("singular batch", () => {
  it("round-trips, and its encoding is rlp([parent_hash, epoch_number, epoch_hash, timestamp, transaction_list])", () => {
    const enc = encodeSingularBatch(BATCH);
    expect(bytesToHex(enc)).toBe(bytesToHex(RLP.encode(fields(BATCH) as never)));
    expect(decodeSingularBatch(enc)).toEqual(BATCH);
    const empty = { ...BATCH, epochNum: 0n, timestamp: 0n, transactions: [] };
    expect(decodeSingularBatch(encodeSingularBatch(empty))).toEqual(empty);
  });

  it.each<[string, () => Uint8Array]>([
    ["4 fields", () => RLP.encode(fields(BATCH).slice(0, 4) as never)],
    ["6 fields", () => RLP.encode([...fields(BATCH), new Uint8Array(0)] as never)],
    ["a 31-byte parent hash", () => RLP.encode(fields({ ...BATCH, parentHash: new Uint8Array(31) }) as never)],
    ["a 33-byte epoch hash", () => RLP.encode(fields({ ...BATCH, epochHash: new Uint8Array(33) }) as never)],
    ["an epoch number with a leading zero byte", () => RLP.encode([BATCH.parentHash, hexToBytes("0x0001"), BATCH.epochHash, u64(1n), []] as never)],
    ["a 9-byte timestamp (over u64)", () => RLP.encode([BATCH.parentHash, u64(1n), BATCH.epochHash, new Uint8Array(9).fill(1), []] as never)],
    ["a transaction list that is a string", () => RLP.encode([BATCH.parentHash, u64(1n), BATCH.epochHash, u64(1n), new Uint8Array(2)] as never)],
    ["a transaction that is a list", () => RLP.encode([BATCH.parentHash, u64(1n), BATCH.epochHash, u64(1n), [[new Uint8Array(1)]]] as never)],
    ["a list header cut short", () => encodeSingularBatch(BATCH).subarray(0, 50)],
    ["bytes after the list", () => Uint8Array.of(...encodeSingularBatch(BATCH), 0x80)],
    ["a string instead of a list", () => RLP.encode(new Uint8Array(100))],
    ["nothing", () => new Uint8Array(0)],
  ])("refuses %s", (_name, make) => {
    expect(codecError(() => decodeSingularBatch(make())).code).toBe(DerivationCodecErrorCode.MALFORMED_SINGULAR_BATCH);
  });

  it("refuses to encode hashes of the wrong size or values over u64", () => {
    expect(codecError(() => encodeSingularBatch({ ...BATCH, parentHash: new Uint8Array(20) })).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
    expect(codecError(() => encodeSingularBatch({ ...BATCH, timestamp: 2n ** 64n })).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
  });
});

describe("batch type dispatch", () => {
  it("decodes type 0 as a singular batch and encodes it back", () => {
    const batch: Batch = { type: "singular", batch: BATCH };
    const enc = encodeBatch(batch);
    expect(enc[0]).toBe(0);
    expect(decodeBatch(enc)).toEqual(batch);
  });

  it.each([
    ["empty", "0x", -1],
    ["type 2 (span batch with fee recipients, not activated)", "0x02c0", 2],
    ["type 0x7e", "0x7ec0", 0x7e],
    ["type 0xc0 (a bare RLP list)", "0xc0", 0xc0],
  ])("refuses %s as an unknown type", (_name, hex, type) => {
    const e = codecError(() => decodeBatch(hexToBytes(hex as `0x${string}`)));
    expect(e.code).toBe(DerivationCodecErrorCode.UNKNOWN_BATCH_TYPE);
    expect(e.meta).toEqual({ batchType: type });
  });

  it("passes the inner decoder's error through (type 0 with no content, type 1 with no content)", () => {
    expect(codecError(() => decodeBatch(Uint8Array.of(0))).code).toBe(DerivationCodecErrorCode.MALFORMED_SINGULAR_BATCH);
    expect(codecError(() => decodeBatch(Uint8Array.of(1))).code).toBe(DerivationCodecErrorCode.MALFORMED_SPAN_BATCH);
  });
});
