/**
 * Span batches (type 1): round trips through signed transactions of every type a span batch
 * carries (legacy unprotected / EIP-155, EIP-2930, EIP-1559, EIP-7702, contract creations),
 * origin bits and timestamps, the `MAX_SPAN_BATCH_ELEMENT_COUNT` limits (refused before anything
 * that size is allocated), and the decode-time and rebuild-time refusals of op-node.
 */
import { createCustomCommon, Hardfork, Mainnet } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { createAccessList2930Tx, createEOACode7702Tx, createFeeMarket1559Tx, createLegacyTx, createTxFromRLP } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "@ethereumjs/util";
import { describe, expect, it } from "vitest";
import { codecError } from "../../helpers/derivation.js";
import { loadNative } from "../../../src/chain/crypto.js";
import { OP_NETWORKS } from "../../../src/chain/op/networks.js";
import { MAX_SPAN_BATCH_ELEMENT_COUNT } from "../../../src/derivation/constants.js";
import { Bitlist } from "../../../src/derivation/bitlist.js";
import { joinBytes } from "../../../src/derivation/bytes.js";
import { DerivationCodecErrorCode } from "../../../src/derivation/codecErrors.js";
import {
  type RawSpanBatch,
  type SpanBatchElement,
  decodeSpanBatch,
  deriveSpanBatch,
  encodeSpanBatch,
  expandSpanBatch,
  spanBatchFromBlocks,
} from "../../../src/derivation/spanBatch.js";
import { encodeUvarint } from "../../../src/derivation/varint.js";

/** Base mainnet's rollup config: an OpNetwork is a SpanBatchRollupConfig. */
const BASE = OP_NETWORKS["base-mainnet"];
const KEY = hexToBytes(`0x${"4c".repeat(32)}`);
const TO = hexToBytes(`0x${"ab".repeat(20)}`);
const crypto = loadNative() ?? {};
const MODERN = createCustomCommon({ chainId: Number(BASE.chainId) }, Mainnet, { hardfork: Hardfork.Prague, customCrypto: crypto });
/** Before EIP-155 (Spurious Dragon): legacy transactions signed with v = 27/28. */
const PRE_155 = createCustomCommon({ chainId: Number(BASE.chainId) }, Mainnet, { hardfork: Hardfork.Homestead, customCrypto: crypto });

/** One signed transaction of each kind, with awkward values (large nonce and gas, empty and long data). */
function signedTxs(): Record<string, Uint8Array> {
  const common = { common: MODERN };
  const accessList = [{ address: `0x${"cd".repeat(20)}` as const, storageKeys: [`0x${"01".repeat(32)}` as const, `0x${"00".repeat(32)}` as const] }];
  return {
    legacyUnprotected: createLegacyTx({ nonce: 0, gasPrice: 7, gasLimit: 21_000, to: TO, value: 1 }, { common: PRE_155 }).sign(KEY).serialize(),
    legacyProtected: createLegacyTx({ nonce: 2n ** 40n, gasPrice: 10n ** 9n, gasLimit: 2n ** 50n, to: TO, value: 0, data: new Uint8Array(100).fill(9) }, common).sign(KEY).serialize(),
    legacyCreate: createLegacyTx({ nonce: 1, gasPrice: 1, gasLimit: 100_000, data: hexToBytes("0x6000600055") }, common).sign(KEY).serialize(),
    accessList: createAccessList2930Tx({ chainId: BASE.chainId, nonce: 3, gasPrice: 5, gasLimit: 50_000, to: TO, value: 10n ** 18n, accessList }, common).sign(KEY).serialize(),
    dynamicFee: createFeeMarket1559Tx({ chainId: BASE.chainId, nonce: 4, maxPriorityFeePerGas: 1, maxFeePerGas: 10n ** 10n, gasLimit: 30_000, to: TO, data: new Uint8Array(70).fill(1), accessList }, common)
      .sign(KEY)
      .serialize(),
    dynamicFeeCreate: createFeeMarket1559Tx({ chainId: BASE.chainId, nonce: 5, maxPriorityFeePerGas: 0, maxFeePerGas: 1, gasLimit: 90_000, data: hexToBytes("0x60016001") }, common).sign(KEY).serialize(),
    setCode: createEOACode7702Tx(
      {
        chainId: BASE.chainId,
        nonce: 6,
        maxPriorityFeePerGas: 2,
        maxFeePerGas: 3,
        gasLimit: 80_000,
        to: TO,
        value: 0,
        accessList: [],
        authorizationList: [{ chainId: "0x2105", address: `0x${"ef".repeat(20)}`, nonce: "0x7", yParity: "0x1", r: `0x${"12".repeat(32)}`, s: `0x${"34".repeat(32)}` }],
      },
      common,
    )
      .sign(KEY)
      .serialize(),
  };
}
const TXS = signedTxs();

/** Four blocks over epochs 100, 100, 101, 101, the first starting its epoch; the second has no transactions. */
function blocks(): SpanBatchElement[] {
  const t0 = BASE.genesis.l2Time + 1_000n;
  return [
    { epochNum: 100n, timestamp: t0, transactions: [TXS.legacyUnprotected!, TXS.accessList!] },
    { epochNum: 100n, timestamp: t0 + 2n, transactions: [] },
    { epochNum: 101n, timestamp: t0 + 4n, transactions: [TXS.dynamicFee!, TXS.setCode!, TXS.legacyCreate!] },
    { epochNum: 101n, timestamp: t0 + 6n, transactions: [TXS.dynamicFeeCreate!, TXS.legacyProtected!] },
  ];
}
const OPTS = { parentHash: new Uint8Array(32).fill(0xaa), lastEpochHash: new Uint8Array(32).fill(0xbb), firstBlockStartsEpoch: true };

function build(bs = blocks()): RawSpanBatch {
  return spanBatchFromBlocks(bs, BASE, OPTS);
}

/** Span batch content from explicit parts: prefix (zero checks) then the given payload bytes. */
function content(rel: bigint, origin: bigint, ...payload: Uint8Array[]): Uint8Array {
  return joinBytes([encodeUvarint(rel), encodeUvarint(origin), new Uint8Array(20), new Uint8Array(20), ...payload]);
}
const v = encodeUvarint;
const bytes = (...b: number[]) => Uint8Array.from(b);
const empty = new Uint8Array(0);
/** A typed tx_data: `type ++ rlp(fields)`. */
const typedTxData = (type: number, fields: unknown[]) => Uint8Array.of(type, ...RLP.encode(fields as never));

describe("span batch round trips", () => {
  it("every transaction type comes back byte for byte, with its sender", () => {
    const raw = build();
    expect(raw.txs.txTypes).toEqual([0, 1, 2, 4, 0, 2, 0]);
    expect(raw.txs.protectedBits.length).toBe(3);
    expect([0, 1, 2].map((i) => raw.txs.protectedBits.get(i))).toEqual([false, true, true]);
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => raw.txs.contractCreationBits.get(i))).toEqual([false, false, false, false, true, true, false]);
    const enc = encodeSpanBatch(raw);
    const decoded = decodeSpanBatch(enc);
    expect(bytesToHex(encodeSpanBatch(decoded))).toBe(bytesToHex(enc));
    const span = deriveSpanBatch(decoded, BASE);
    const original = blocks();
    span.blocks.forEach((b, i) => {
      expect(b.timestamp).toBe(original[i]!.timestamp);
      expect(b.epochNum).toBe(original[i]!.epochNum);
      expect(b.transactions.map(bytesToHex)).toEqual(original[i]!.transactions.map(bytesToHex));
    });
    for (const tx of span.blocks.flatMap((b) => b.transactions)) {
      expect(createTxFromRLP(tx, { common: MODERN }).getSenderAddress().toString()).toBe(createTxFromRLP(TXS.dynamicFee!, { common: MODERN }).getSenderAddress().toString());
    }
  });

  it("sets origin bits where the epoch advances and derives origins back from l1_origin_num", () => {
    const t0 = BASE.genesis.l2Time;
    const epochs = [100n, 100n, 101n, 101n, 102n];
    const bs = epochs.map((e, i) => ({ epochNum: e, timestamp: t0 + 2n * BigInt(i), transactions: [] }));
    const raw = spanBatchFromBlocks(bs, BASE, OPTS);
    expect([0, 1, 2, 3, 4].map((i) => raw.originBits.get(i))).toEqual([true, false, true, false, true]);
    expect(raw.l1OriginNum).toBe(102n);
    expect(raw.relTimestamp).toBe(0n);
    expect(bytesToHex(raw.parentCheck)).toBe(`0x${"aa".repeat(20)}`);
    expect(bytesToHex(raw.l1OriginCheck)).toBe(`0x${"bb".repeat(20)}`);
    expect(deriveSpanBatch(decodeSpanBatch(encodeSpanBatch(raw)), BASE).blocks.map((b) => b.epochNum)).toEqual(epochs);
    // Bit 0 does not move origins: without it the numbers are the same.
    const noFirst = spanBatchFromBlocks(bs, BASE, { ...OPTS, firstBlockStartsEpoch: false });
    expect(deriveSpanBatch(noFirst, BASE).blocks.map((b) => b.epochNum)).toEqual(epochs);
  });

  it("expands to singular batches with the caller's epoch hashes, or names the epoch it lacks", () => {
    const span = deriveSpanBatch(build(), BASE);
    const hashes = new Map([
      [100n, new Uint8Array(32).fill(1)],
      [101n, new Uint8Array(32).fill(2)],
    ]);
    const singular = expandSpanBatch(span, (n) => hashes.get(n));
    expect(singular.map((s) => [s.epochNum, s.epochHash[0], s.transactions.length])).toEqual([
      [100n, 1, 2],
      [100n, 1, 0],
      [101n, 2, 3],
      [101n, 2, 2],
    ]);
    const e = codecError(() => expandSpanBatch(span, (n) => (n === 100n ? hashes.get(n) : undefined)));
    expect(e.code).toBe(DerivationCodecErrorCode.MISSING_EPOCH_HASH);
    expect(e.meta).toEqual({ epoch: "101" });
  });

  it("wraps timestamps and origin numbers as op-node's u64 arithmetic does", () => {
    const raw = decodeSpanBatch(content(2n ** 64n - 1n, 0n, v(2), bytes(0b10), v(0), v(0)));
    const span = deriveSpanBatch(raw, { chainId: 10n, blockTime: 2n, genesis: { l2Time: 10n } });
    expect(span.blocks.map((b) => b.timestamp)).toEqual([9n, 11n]);
    expect(span.blocks.map((b) => b.epochNum)).toEqual([2n ** 64n - 1n, 0n]);
  });
});

describe("span batch decoding refusals", () => {
  const max = MAX_SPAN_BATCH_ELEMENT_COUNT;
  it.each<[string, () => Uint8Array, string, Record<string, unknown>?]>([
    ["nothing", () => new Uint8Array(0), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "rel_timestamp" }],
    ["an overflowing rel_timestamp", () => bytes(...new Array<number>(10).fill(0xff), 1), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "rel_timestamp" }],
    ["a short parent_check", () => joinBytes([v(1), v(2), new Uint8Array(10)]), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "parent_check" }],
    ["a short l1_origin_check", () => joinBytes([v(1), v(2), new Uint8Array(30)]), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "l1_origin_check" }],
    ["no block_count", () => content(1n, 2n), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "block_count" }],
    ["block_count 0", () => content(1n, 2n, v(0)), DerivationCodecErrorCode.EMPTY_SPAN_BATCH],
    ["block_count over the limit", () => content(1n, 2n, v(max + 1)), DerivationCodecErrorCode.SPAN_BATCH_TOO_BIG, { field: "block_count", count: "10000001" }],
    ["block_count 2^64-1", () => content(1n, 2n, v(2n ** 64n - 1n)), DerivationCodecErrorCode.SPAN_BATCH_TOO_BIG, { field: "block_count" }],
    ["block_count at the limit with no origin bits", () => content(1n, 2n, v(max)), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "origin_bits" }],
    ["an origin bit beyond block_count", () => content(1n, 2n, v(3), bytes(0x08)), DerivationCodecErrorCode.BITLIST_TOO_LONG, { field: "origin_bits", highestSetBit: 3 }],
    ["a block tx count over the limit", () => content(1n, 2n, v(1), bytes(0), v(max + 1)), DerivationCodecErrorCode.SPAN_BATCH_TOO_BIG, { field: "block_tx_counts[0]" }],
    ["block tx counts summing over the limit", () => content(1n, 2n, v(2), bytes(0), v(6_000_000), v(6_000_000)), DerivationCodecErrorCode.SPAN_BATCH_TOO_BIG, { field: "total transaction count" }],
    ["a total of MAX transactions in a few bytes", () => content(1n, 2n, v(1), bytes(0), v(max), new Uint8Array(8)), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "contract_creation_bits" }],
    ["a contract creation bit beyond the count", () => content(1n, 2n, v(1), bytes(0), v(2), bytes(0x04)), DerivationCodecErrorCode.BITLIST_TOO_LONG, { field: "contract_creation_bits" }],
    ["a y parity bit beyond the count", () => content(1n, 2n, v(1), bytes(0), v(2), bytes(0), bytes(0x80)), DerivationCodecErrorCode.BITLIST_TOO_LONG, { field: "y_parity_bits" }],
    ["short tx_sigs", () => content(1n, 2n, v(1), bytes(0), v(3), bytes(0), bytes(0), new Uint8Array(100)), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "tx_sigs" }],
    ["short tx_tos", () => content(1n, 2n, v(1), bytes(0), v(1), bytes(0), bytes(0), new Uint8Array(64 + 19)), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "tx_tos" }],
  ])("refuses %s", (_name, make, code, meta) => {
    const e = codecError(() => decodeSpanBatch(make()));
    expect(e.code).toBe(code);
    if (meta) expect(e.meta).toMatchObject(meta);
  });

  /** A one-transaction (creation) span batch whose txs section is `txData` then `rest`. */
  const oneTx = (txData: Uint8Array, rest: Uint8Array[] = []) => content(1n, 2n, v(1), bytes(0), v(1), bytes(1), bytes(0), new Uint8Array(64), txData, ...rest);

  it.each<[string, Uint8Array, string, Record<string, unknown>]>([
    ["a tx_data that is a string", oneTx(hexToBytes("0x0280")), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "tx_datas[0]" }],
    ["a legacy tx_data that is a string", oneTx(hexToBytes("0x83010203")), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "tx_datas[0]" }],
    ["a tx_data cut short", oneTx(hexToBytes("0x02c3")), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "tx_datas[0]" }],
    // op-node reads a tx_data through an RLP stream limited to MAX bytes: its size may be MAX minus its header.
    ["a tx_data declaring MAX - 3 bytes (4-byte header)", oneTx(hexToBytes(`0x02fa${(max - 3).toString(16).padStart(6, "0")}`)), DerivationCodecErrorCode.SPAN_BATCH_TOO_BIG, { field: "tx_data size" }],
    ["a tx_data declaring MAX - 4 bytes but holding none", oneTx(hexToBytes(`0x02fa${(max - 4).toString(16).padStart(6, "0")}`)), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "tx_datas[0]" }],
    ["a non-canonical tx_data header", oneTx(hexToBytes("0x02f800")), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "tx_datas[0]" }],
    ["no nonce", oneTx(hexToBytes("0x02c0")), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "tx_nonces[0]" }],
    ["an overflowing gas", oneTx(hexToBytes("0x02c0"), [v(1), new Uint8Array(11).fill(0xff)]), DerivationCodecErrorCode.MALFORMED_SPAN_BATCH, { field: "tx_gases[0]" }],
  ])("refuses %s", (_name, input, code, meta) => {
    const e = codecError(() => decodeSpanBatch(input));
    expect(e.code).toBe(code);
    expect(e.meta).toMatchObject(meta);
  });

  it("refuses a protected bit beyond the legacy count", () => {
    const enc = encodeSpanBatch(build());
    expect(enc[enc.length - 1]).toBe(0b110);
    enc[enc.length - 1] = 0b1110;
    expect(codecError(() => decodeSpanBatch(enc)).meta).toMatchObject({ field: "protected_bits", bitLength: 3, highestSetBit: 3 });
  });

  it("ignores bytes after the last field, as op-node does", () => {
    const enc = encodeSpanBatch(build());
    const raw = decodeSpanBatch(Uint8Array.of(...enc, 1, 2, 3));
    expect(bytesToHex(encodeSpanBatch(raw))).toBe(bytesToHex(enc));
  });
});

describe("span batch transaction rebuild refusals (op-node derive)", () => {
  /** The built batch with transaction 1 (the EIP-2930 one, not legacy) given another tx_data. */
  function withTxData(txData: Uint8Array): RawSpanBatch {
    const raw = decodeSpanBatch(encodeSpanBatch(build()));
    raw.txs.txDatas[1] = txData;
    raw.txs.txTypes[1] = txData[0]! < 0x80 ? txData[0]! : 0;
    return decodeSpanBatch(encodeSpanBatch(raw));
  }

  it.each<[string, Uint8Array, string]>([
    ["type 3 (blob)", hexToBytes("0x03c0"), "type 3"],
    ["type 5", hexToBytes("0x05c0"), "type 5"],
    ["a deposit (0x7e)", hexToBytes("0x7ec0"), "type 126"],
    ["a 1559 tx_data of 4 fields", typedTxData(2, [empty, empty, empty, empty]), "4 elements, expected 5"],
    ["a 2930 value with a leading zero", typedTxData(1, [hexToBytes("0x0001"), empty, empty, []]), "non-canonical integer"],
    ["an access list address of 19 bytes", typedTxData(1, [empty, empty, empty, [[new Uint8Array(19).fill(0x11), []]]]), "19 bytes, expected 20"],
    ["a storage key of 31 bytes", typedTxData(1, [empty, empty, empty, [[new Uint8Array(20), [new Uint8Array(31)]]]]), "31 bytes, expected 32"],
    ["data that is a list", typedTxData(1, [empty, empty, [], []]), "is a list, expected a byte string"],
    ["an authorization of 5 fields", typedTxData(4, [empty, empty, empty, empty, [], [[empty, new Uint8Array(20), empty, empty, empty]]]), "5 elements, expected 6"],
  ])("refuses %s at rebuild, naming the transaction", (_name, txData, reason) => {
    const raw = withTxData(txData);
    const e = codecError(() => deriveSpanBatch(raw, BASE));
    expect(e.code).toBe(DerivationCodecErrorCode.INVALID_SPAN_TX);
    expect(e.meta).toMatchObject({ index: 1 });
    expect(e.message).toContain(reason);
  });

  it("counts a tx_data with type byte 0x00 as legacy (for the protected bits), as op-node does, and refuses it at rebuild", () => {
    const raw = decodeSpanBatch(encodeSpanBatch(build()));
    raw.txs.txDatas[1] = Uint8Array.of(0, ...RLP.encode([empty, empty, empty] as never));
    raw.txs.txTypes[1] = 0;
    raw.txs.protectedBits = new Bitlist(4);
    const decoded = decodeSpanBatch(encodeSpanBatch(raw));
    expect(decoded.txs.protectedBits.length).toBe(4);
    const e = codecError(() => deriveSpanBatch(decoded, BASE));
    expect(e.meta).toMatchObject({ index: 1 });
    expect(e.message).toContain("type 0 is not supported");
  });

  it("refuses a set-code transaction flagged as a contract creation, and a set-code value over 32 bytes", () => {
    const raw = decodeSpanBatch(encodeSpanBatch(build()));
    // Transaction 3 is the set-code one: mark it as a creation and drop its recipient.
    raw.txs.contractCreationBits.set(3, true);
    raw.txs.txTos = Uint8Array.of(...raw.txs.txTos.subarray(0, 60), ...raw.txs.txTos.subarray(80));
    expect(codecError(() => deriveSpanBatch(decodeSpanBatch(encodeSpanBatch(raw)), BASE)).message).toContain("cannot create a contract");
    const big = decodeSpanBatch(encodeSpanBatch(build()));
    big.txs.txDatas[3] = typedTxData(4, [new Uint8Array(33).fill(1), empty, empty, empty, [], []]);
    expect(codecError(() => deriveSpanBatch(decodeSpanBatch(encodeSpanBatch(big)), BASE)).message).toContain("33 bytes, more than 32");
  });
});

describe("span batch building refusals (the batcher side)", () => {
  const other = createCustomCommon({ chainId: 1 }, Mainnet, { hardfork: Hardfork.Prague, customCrypto: crypto });
  it.each<[string, () => SpanBatchElement[]]>([
    ["no blocks", () => []],
    ["timestamps not block_time apart", () => blocks().map((b, i) => (i === 2 ? { ...b, timestamp: b.timestamp + 1n } : b))],
    ["an epoch that skips one", () => blocks().map((b, i) => (i === 3 ? { ...b, epochNum: 103n } : b))],
    ["an epoch that goes back", () => blocks().map((b, i) => (i === 3 ? { ...b, epochNum: 99n } : b))],
    ["a timestamp before genesis", () => blocks().map((b, i) => ({ ...b, timestamp: BASE.genesis.l2Time - 10n + 2n * BigInt(i) }))],
    ["a transaction of another chain", () => [{ ...blocks()[0]!, transactions: [createLegacyTx({ gasPrice: 1, gasLimit: 21_000, to: TO }, { common: other }).sign(KEY).serialize()] }]],
    ["a deposit transaction", () => [{ ...blocks()[0]!, transactions: [hexToBytes("0x7ec0")] }]],
    ["a transaction with type byte 0x00", () => [{ ...blocks()[0]!, transactions: [hexToBytes("0x00c9808080808080808080")] }]],
    ["an empty transaction", () => [{ ...blocks()[0]!, transactions: [new Uint8Array(0)] }]],
  ])("refuses %s", (_name, make) => {
    expect(codecError(() => spanBatchFromBlocks(make(), BASE, OPTS)).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
  });

  it("refuses checks that are neither 20 nor 32 bytes", () => {
    expect(codecError(() => spanBatchFromBlocks(blocks(), BASE, { ...OPTS, parentHash: new Uint8Array(21) })).code).toBe(DerivationCodecErrorCode.INVALID_ENCODE_INPUT);
  });
});
