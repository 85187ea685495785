/**
 * `ConfigUpdate` logs of the SystemConfig: every type 0–7 with the exact data of kona's tests
 * (op-rs/kona@cdb9be2 crates/protocol/genesis/src/updates/{batcher,gas_config,gas_limit,signer,
 * eip1559,operator_fee,min_base_fee,da_footprint_gas_scalar}.rs and system/config.rs), their error
 * cases (bad lengths, pointers, values) — skipped with the reason, never fatal — unknown types,
 * the Ecotone scalar rules, and encode → decode round trips.
 */
import { describe, expect, it } from "vitest";
import {
  CONFIG_UPDATE_TOPIC_BYTES,
  ConfigUpdateError,
  ConfigUpdateErrorCode,
  ConfigUpdateType,
  decodeConfigUpdateLog,
  encodeConfigUpdateLog,
  isEcotoneAtL1Time,
  isValidEcotoneScalar,
  type ConfigUpdate,
  type ConfigUpdateDecoding,
} from "../../../../src/chain/op/configUpdate.js";
import { OP_NETWORKS } from "../../../../src/chain/op/networks.js";
import type { Log } from "../../../../src/storage/types.js";
import { fromHex, to0x } from "../../../../src/util/bytes.js";

const SYSTEM_CONFIG = fromHex("0x73a79fab69143498ed3712e519a88a918e1f4072");

function typeTopic(t: bigint): Uint8Array {
  return fromHex("0x" + t.toString(16).padStart(64, "0"));
}

function configLog(type: bigint, dataHex: string): Log {
  return { address: SYSTEM_CONFIG, topics: [CONFIG_UPDATE_TOPIC_BYTES, new Uint8Array(32), typeTopic(type)], data: fromHex(dataHex) };
}

function updateOf(d: ConfigUpdateDecoding): ConfigUpdate {
  if (d.kind !== "update") throw new Error(`expected an update, got skipped: ${d.error.message}`);
  return d.update;
}

function skipOf(d: ConfigUpdateDecoding): ConfigUpdateError {
  if (d.kind !== "skipped") throw new Error(`expected a skip, got ${JSON.stringify(d.update, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`);
  return d.error;
}

// The data words of kona's tests.
const PTR = "0000000000000000000000000000000000000000000000000000000000000020";
const LEN32 = "0000000000000000000000000000000000000000000000000000000000000020";
const LEN64 = "0000000000000000000000000000000000000000000000000000000000000040";
const BEEF = "000000000000000000000000000000000000000000000000000000000000beef";
const BABE = "000000000000000000000000000000000000000000000000000000000000babe";
const BABE_BEEF = "0000000000000000000000000000000000000000000000000000babe0000beef";
const FF = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
const PTR33 = "0000000000000000000000000000000000000000000000000000000000000021";
const LEN33 = "0000000000000000000000000000000000000000000000000000000000000021";
const LEN65 = "0000000000000000000000000000000000000000000000000000000000000041";

describe("decodeConfigUpdateLog: kona vectors per type", () => {
  it("type 0 batcher (updates/batcher.rs test_batcher_update_try_from)", () => {
    const u = updateOf(decodeConfigUpdateLog(configLog(0n, "0x" + PTR + LEN32 + BEEF), false));
    expect(u.type).toBe("batcher");
    expect(u.type === "batcher" && to0x(u.batcherAddress)).toBe("0x000000000000000000000000000000000000beef");
  });

  it("type 1 fee scalars, pre-Ecotone (updates/gas_config.rs test_gas_config_update_try_from)", () => {
    expect(updateOf(decodeConfigUpdateLog(configLog(1n, "0x" + PTR + LEN64 + BABE + BEEF), false))).toEqual({ type: "feeScalars", overhead: 0xbaben, scalar: 0xbeefn });
  });

  it("type 1 fee scalars under Ecotone zero the overhead (system/config.rs test_system_config_update_gas_config_log_ecotone)", () => {
    expect(updateOf(decodeConfigUpdateLog(configLog(1n, "0x" + PTR + LEN64 + BABE + BEEF), true))).toEqual({ type: "feeScalars", overhead: 0n, scalar: 0xbeefn });
  });

  it("type 1 accepts max uint256 overhead and scalar before Ecotone (test_gas_config_update_*_decoding_succeeds_max_u256)", () => {
    expect(updateOf(decodeConfigUpdateLog(configLog(1n, "0x" + PTR + LEN64 + FF + BEEF), false))).toEqual({ type: "feeScalars", overhead: (1n << 256n) - 1n, scalar: 0xbeefn });
    expect(updateOf(decodeConfigUpdateLog(configLog(1n, "0x" + PTR + LEN64 + BABE + FF), false))).toEqual({ type: "feeScalars", overhead: 0xbaben, scalar: (1n << 256n) - 1n });
  });

  it("type 2 gas limit (updates/gas_limit.rs test_gas_limit_update_try_from)", () => {
    expect(updateOf(decodeConfigUpdateLog(configLog(2n, "0x" + PTR + LEN32 + BEEF), false))).toEqual({ type: "gasLimit", gasLimit: 0xbeefn });
  });

  it("type 3 unsafe block signer (updates/signer.rs test_signer_update_try_from)", () => {
    const u = updateOf(decodeConfigUpdateLog(configLog(3n, "0x" + PTR + LEN32 + BEEF), false));
    expect(u.type === "unsafeBlockSigner" && to0x(u.unsafeBlockSigner)).toBe("0x000000000000000000000000000000000000beef");
  });

  it("type 4 EIP-1559 params (updates/eip1559.rs test_eip1559_update_try_from)", () => {
    expect(updateOf(decodeConfigUpdateLog(configLog(4n, "0x" + PTR + LEN32 + BABE_BEEF), false))).toEqual({ type: "eip1559Params", denominator: 0xbabe, elasticity: 0xbeef });
  });

  it("type 5 operator fee (updates/operator_fee.rs test_operator_fee_update_try_from)", () => {
    const data = "0x" + PTR + LEN32 + "00000000000000000000000000000000000000000000babe000000000000beef";
    expect(updateOf(decodeConfigUpdateLog(configLog(5n, data), false))).toEqual({ type: "operatorFee", operatorFeeScalar: 0xbaben, operatorFeeConstant: 0xbeefn });
  });

  it("type 6 min base fee (updates/min_base_fee.rs test_min_base_fee_update_try_from)", () => {
    expect(updateOf(decodeConfigUpdateLog(configLog(6n, "0x" + PTR + LEN32 + BEEF), false))).toEqual({ type: "minBaseFee", minBaseFee: 0xbeefn });
  });

  it("type 7 DA footprint gas scalar (updates/da_footprint_gas_scalar.rs test_da_footprint_update_try_from)", () => {
    expect(updateOf(decodeConfigUpdateLog(configLog(7n, "0x" + PTR + LEN32 + BEEF), false))).toEqual({ type: "daFootprintGasScalar", daFootprintGasScalar: 0xbeefn });
  });
});

describe("decodeConfigUpdateLog: malformed updates are skipped with the reason", () => {
  // The same error cases kona tests for every type: *_invalid_data_len, *_pointer_decoding_error,
  // *_invalid_pointer_length, *_length_decoding_error, *_invalid_data_length, *_decoding_error.
  const cases: [string, bigint, string, string, Record<string, unknown>][] = [];
  for (const [name, type] of Object.entries(ConfigUpdateType) as [string, number][]) {
    const t = BigInt(type);
    const fee = name === "feeScalars";
    const len = fee ? LEN64 : LEN32;
    const payload = fee ? BABE + BEEF : BABE_BEEF;
    const lenBad = fee ? LEN65 : LEN33;
    cases.push(
      [`${name}: empty data`, t, "0x", ConfigUpdateErrorCode.BAD_DATA_LENGTH, { length: 0, expected: fee ? 128 : 96 }],
      [`${name}: pointer not a uint64`, t, "0x" + FF + len + payload, ConfigUpdateErrorCode.BAD_POINTER, { pointer: "0x" + FF }],
      [`${name}: pointer 33`, t, "0x" + PTR33 + len + payload, ConfigUpdateErrorCode.BAD_POINTER, { pointer: "0x" + PTR33 }],
      [`${name}: length not a uint64`, t, "0x" + PTR + FF + payload, ConfigUpdateErrorCode.BAD_PAYLOAD_LENGTH, { length: ((1n << 256n) - 1n).toString() }],
      [`${name}: length ${fee ? 65 : 33}`, t, "0x" + PTR + lenBad + payload, ConfigUpdateErrorCode.BAD_PAYLOAD_LENGTH, { length: fee ? "65" : "33" }],
      [`${name}: one extra byte`, t, "0x" + PTR + len + payload + "00", ConfigUpdateErrorCode.BAD_DATA_LENGTH, {}],
    );
  }
  // Value decoding errors (kona *_decoding_error with an all-0xff value word).
  cases.push(
    ["batcher: address with padding", 0n, "0x" + PTR + LEN32 + FF, ConfigUpdateErrorCode.BAD_VALUE, { field: "batcherAddress" }],
    ["unsafeBlockSigner: address with padding", 3n, "0x" + PTR + LEN32 + FF, ConfigUpdateErrorCode.BAD_VALUE, { field: "unsafeBlockSigner" }],
    ["gasLimit: over uint64", 2n, "0x" + PTR + LEN32 + FF, ConfigUpdateErrorCode.BAD_VALUE, { field: "gasLimit" }],
    ["eip1559Params: over uint64", 4n, "0x" + PTR + LEN32 + FF, ConfigUpdateErrorCode.BAD_VALUE, { field: "eip1559Params" }],
    ["minBaseFee: over uint64", 6n, "0x" + PTR + LEN32 + FF, ConfigUpdateErrorCode.BAD_VALUE, { field: "minBaseFee" }],
    ["daFootprintGasScalar: over uint16", 7n, "0x" + PTR + LEN32 + "0000000000000000000000000000000000000000000000000000000000010000", ConfigUpdateErrorCode.BAD_VALUE, { field: "daFootprintGasScalar" }],
    // op-node ValidateHolocene1559Params: denominator and elasticity both zero or both non-zero.
    ["eip1559Params: zero denominator", 4n, "0x" + PTR + LEN32 + "0000000000000000000000000000000000000000000000000000000000000006", ConfigUpdateErrorCode.BAD_VALUE, { field: "eip1559Params" }],
    ["eip1559Params: zero elasticity", 4n, "0x" + PTR + LEN32 + "00".repeat(24) + "000000fa00000000", ConfigUpdateErrorCode.BAD_VALUE, { field: "eip1559Params" }],
  );
  it.each(cases)("%s", (_name, type, data, code, meta) => {
    const e = skipOf(decodeConfigUpdateLog(configLog(type, data), false));
    expect(e).toBeInstanceOf(ConfigUpdateError);
    expect(e.code).toBe(code);
    expect(e.type).toMatchObject(meta);
  });

  it("unknown type 8 (Base's ActivationAdmin) is skipped as unknown", () => {
    const e = skipOf(decodeConfigUpdateLog(configLog(8n, "0x" + PTR + LEN32 + BEEF), false));
    expect(e.type).toEqual({ code: ConfigUpdateErrorCode.UNKNOWN_TYPE, updateType: "8" });
  });

  it("an update type with high bytes set is unknown, not read from its low byte", () => {
    const e = skipOf(decodeConfigUpdateLog(configLog((1n << 200n) | 2n, "0x" + PTR + LEN32 + BEEF), false));
    expect(e.code).toBe(ConfigUpdateErrorCode.UNKNOWN_TYPE);
  });

  it("wrong topic count, event or version", () => {
    const good = configLog(2n, "0x" + PTR + LEN32 + BEEF);
    expect(skipOf(decodeConfigUpdateLog({ ...good, topics: good.topics.slice(0, 2) }, false)).type).toEqual({ code: ConfigUpdateErrorCode.TOPIC_COUNT, topics: 2 });
    expect(skipOf(decodeConfigUpdateLog({ ...good, topics: [...good.topics, new Uint8Array(32)] }, false)).code).toBe(ConfigUpdateErrorCode.TOPIC_COUNT);
    expect(skipOf(decodeConfigUpdateLog({ ...good, topics: [new Uint8Array(32), good.topics[1]!, good.topics[2]!] }, false)).code).toBe(ConfigUpdateErrorCode.NOT_CONFIG_UPDATE_EVENT);
    const v1 = skipOf(decodeConfigUpdateLog({ ...good, topics: [good.topics[0]!, typeTopic(1n), good.topics[2]!] }, false));
    expect(v1.type).toEqual({ code: ConfigUpdateErrorCode.UNSUPPORTED_VERSION, version: "0x" + "00".repeat(31) + "01" });
  });
});

describe("Ecotone scalar rules (specs system-config.md; kona check_ecotone_l1_system_config_scalar)", () => {
  const v0 = 0xbeefn;
  const v1 = (1n << 248n) | (0x0010_1c12n << 32n) | 0x08ddn;
  it.each([
    ["version 0, only the low 4 bytes", v0, true],
    ["version 0 with bytes [1,28) zero", 0xffff_ffffn, true],
    ["version 0 with a byte in [1,28)", 1n << 32n, false],
    ["version 1, blob scalar and base fee scalar", v1, true],
    ["version 1 with a byte in [1,24)", v1 | (1n << 64n), false],
    ["version 2", 2n << 248n, false],
  ])("%s", (_name, scalar, valid) => {
    expect(isValidEcotoneScalar(scalar)).toBe(valid);
    const data = "0x" + PTR + LEN64 + BABE + scalar.toString(16).padStart(64, "0");
    const d = decodeConfigUpdateLog(configLog(1n, data), true);
    if (valid) expect(updateOf(d)).toEqual({ type: "feeScalars", overhead: 0n, scalar });
    else expect(skipOf(d).code).toBe(ConfigUpdateErrorCode.INVALID_ECOTONE_SCALAR);
    // Before Ecotone any scalar is taken as is, overhead included.
    expect(updateOf(decodeConfigUpdateLog(configLog(1n, data), false))).toEqual({ type: "feeScalars", overhead: 0xbaben, scalar });
  });

  it("Ecotone rules are keyed on the L1 block timestamp against the (L2) Ecotone time", () => {
    const base = OP_NETWORKS["base-mainnet"];
    expect(isEcotoneAtL1Time(base, 1_710_374_400n)).toBe(false);
    expect(isEcotoneAtL1Time(base, 1_710_374_401n)).toBe(true);
    expect(isEcotoneAtL1Time({ forkTimes: {} }, 2_000_000_000n)).toBe(false);
  });
});

describe("encodeConfigUpdateLog", () => {
  const updates: ConfigUpdate[] = [
    { type: "batcher", batcherAddress: fromHex("0x5050f69a9786f081509234f1a7f4684b5e5b76c9") },
    { type: "feeScalars", overhead: 0xbcn, scalar: 0xa6fe0n },
    { type: "gasLimit", gasLimit: 375_000_000n },
    { type: "unsafeBlockSigner", unsafeBlockSigner: fromHex("0xaf6e19be0f9ce7f8afd49a1824851023a8249e8a") },
    { type: "eip1559Params", denominator: 125, elasticity: 6 },
    { type: "operatorFee", operatorFeeScalar: 0xffff_ffffn, operatorFeeConstant: (1n << 64n) - 1n },
    { type: "minBaseFee", minBaseFee: 5_000_000n },
    { type: "daFootprintGasScalar", daFootprintGasScalar: 139n },
  ];
  it.each(updates.map((u) => [u.type, u] as const))("%s round trips", (_name, u) => {
    const log = encodeConfigUpdateLog(u, SYSTEM_CONFIG);
    expect(log.address).toEqual(SYSTEM_CONFIG);
    expect(log.topics[2]).toEqual(typeTopic(BigInt(ConfigUpdateType[u.type])));
    expect(log.data.length).toBe(u.type === "feeScalars" ? 128 : 96);
    expect(updateOf(decodeConfigUpdateLog(log, false))).toEqual(u);
  });

  it("writes kona's exact data words", () => {
    expect(to0x(encodeConfigUpdateLog({ type: "eip1559Params", denominator: 0xbabe, elasticity: 0xbeef }, SYSTEM_CONFIG).data)).toBe("0x" + PTR + LEN32 + BABE_BEEF);
    expect(to0x(encodeConfigUpdateLog({ type: "feeScalars", overhead: 0xbaben, scalar: 0xbeefn }, SYSTEM_CONFIG).data)).toBe("0x" + PTR + LEN64 + BABE + BEEF);
    expect(to0x(encodeConfigUpdateLog({ type: "operatorFee", operatorFeeScalar: 0xbaben, operatorFeeConstant: 0xbeefn }, SYSTEM_CONFIG).data)).toBe(
      "0x" + PTR + LEN32 + "00000000000000000000000000000000000000000000babe000000000000beef",
    );
  });

  it.each([
    ["gasLimit over uint64", { type: "gasLimit", gasLimit: 1n << 64n }],
    ["DA scalar over uint16", { type: "daFootprintGasScalar", daFootprintGasScalar: 1n << 16n }],
    ["denominator over uint32", { type: "eip1559Params", denominator: 2 ** 32, elasticity: 1 }],
    ["fractional elasticity", { type: "eip1559Params", denominator: 1, elasticity: 1.5 }],
    ["operator fee scalar over uint32", { type: "operatorFee", operatorFeeScalar: 1n << 32n, operatorFeeConstant: 0n }],
    ["short batcher address", { type: "batcher", batcherAddress: new Uint8Array(19) }],
  ] as [string, ConfigUpdate][])("rejects %s", (_name, u) => {
    let error: unknown;
    try {
      encodeConfigUpdateLog(u, SYSTEM_CONFIG);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigUpdateError);
    expect((error as ConfigUpdateError).code).toBe(ConfigUpdateErrorCode.VALUE_OUT_OF_RANGE);
  });
});
