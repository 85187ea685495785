/**
 * SystemConfig updates on L1: the `ConfigUpdate(uint256 indexed version, uint8 indexed updateType,
 * bytes data)` log the SystemConfig proxy emits, decoded into a typed update (applied by
 * `systemConfig.ts`), and the encoder (for a local L1 contract and tests).
 *
 * Sources: specs system-config.md, holocene/system-config.md, isthmus/system-config.md,
 * jovian/system-config.md; kona crates/protocol/genesis/src/updates/*.rs and system/log.rs;
 * op-node op-node/rollup/derive/system_config.go (code-index version with types 0–7).
 *
 * Log layout: topics = [`CONFIG_UPDATE_TOPIC`, version (uint256, only 0), updateType (uint8 as a
 * 32-byte word)]; data = ABI `bytes`: offset word (32), length word, payload — 64 bytes for type 1,
 * 32 otherwise, so the data is exactly 128 or 96 bytes.
 *
 * | type | update | payload |
 * |---|---|---|
 * | 0 | batcher | address (12 zero bytes, then 20) |
 * | 1 | fee scalars | overhead (32) ++ scalar (32); from Ecotone (by the **L1 block** timestamp) the overhead is zeroed and the scalar must be a valid versioned scalar, else the update is ignored |
 * | 2 | gas limit | uint64 |
 * | 3 | unsafe block signer | address (not used by derivation) |
 * | 4 | EIP-1559 params | uint64 `denominator << 32 \| elasticity`; both zero or both non-zero |
 * | 5 | operator fee | scalar = bytes [20,24), constant = bytes [24,32) |
 * | 6 | min base fee | uint64 |
 * | 7 | DA footprint gas scalar | uint16 |
 *
 * Error policy: an update that cannot be parsed is **skipped, with the reason**, never fatal — the
 * spec's rule ("If a System Config Update cannot be parsed for any reason, it is not applied and
 * is instead skipped", specs system-config.md) and what the newer op-node does (each update applied
 * on its own, malformed ones reported and ignored). The same covers an unknown update type (Base's
 * newer type 8 `ActivationAdmin`, base/base crates/common/genesis/src/system/kind.rs), an unknown
 * event version, and an invalid Ecotone scalar (op-node and kona ignore those too). kona instead
 * halts the pipeline on a malformed update; real SystemConfig contracts never emit one, so the
 * choice only shows with adversarial logs. Where op-node and kona validate a field differently,
 * the stricter rule is kept (a 32-byte EIP-1559 word must fit uint64 as in kona, and its two halves
 * must be both zero or both non-zero as in op-node's `ValidateHolocene1559Params`).
 */
import { bytesToHex } from "@ethereumjs/util";
import { CONFIG_UPDATE_TOPIC, CONFIG_UPDATE_VERSION_0 } from "../constants.js";
import type { Log } from "../../storage/types.js";
import { bytesEqual, fromHex } from "../../util/bytes.js";
import { TypedError } from "../../util/errors.js";
import type { OpForkSchedule } from "./forks.js";

/** ABI word size. */
const WORD = 32;
/** Topic 0 of `ConfigUpdate`, as bytes. */
export const CONFIG_UPDATE_TOPIC_BYTES = fromHex(CONFIG_UPDATE_TOPIC);

/** The `updateType` of each SystemConfig update (specs system-config.md and the upgrade specs). */
export const ConfigUpdateType = {
  batcher: 0,
  feeScalars: 1,
  gasLimit: 2,
  unsafeBlockSigner: 3,
  eip1559Params: 4,
  operatorFee: 5,
  minBaseFee: 6,
  daFootprintGasScalar: 7,
} as const;
/** Name of a known SystemConfig update type. */
type ConfigUpdateTypeName = keyof typeof ConfigUpdateType;

/** A decoded SystemConfig update (values as derivation applies them). */
export type ConfigUpdate =
  /** Type 0: the address allowed to post batches (20 bytes). */
  | { type: "batcher"; batcherAddress: Uint8Array }
  /** Type 1: L1 fee parameters; `overhead` is already 0 when decoded under Ecotone rules. */
  | { type: "feeScalars"; overhead: bigint; scalar: bigint }
  /** Type 2: the L2 block gas limit. */
  | { type: "gasLimit"; gasLimit: bigint }
  /** Type 3: the unsafe-block gossip signer (20 bytes); derivation ignores it. */
  | { type: "unsafeBlockSigner"; unsafeBlockSigner: Uint8Array }
  /** Type 4 (Holocene): EIP-1559 denominator and elasticity (u32 each). */
  | { type: "eip1559Params"; denominator: number; elasticity: number }
  /** Type 5 (Isthmus): operator fee scalar (u32) and constant (u64). */
  | { type: "operatorFee"; operatorFeeScalar: bigint; operatorFeeConstant: bigint }
  /** Type 6 (Jovian): minimum base fee (u64). */
  | { type: "minBaseFee"; minBaseFee: bigint }
  /** Type 7 (Jovian): DA footprint gas scalar (u16; 0 means the default 400 when used). */
  | { type: "daFootprintGasScalar"; daFootprintGasScalar: bigint };

/** Stable codes of {@link ConfigUpdateError}. */
export const ConfigUpdateErrorCode = {
  /** Not exactly 3 topics (event, version, updateType). */
  TOPIC_COUNT: "CONFIG_UPDATE_TOPIC_COUNT",
  /** Topic 0 is not `ConfigUpdate`. */
  NOT_CONFIG_UPDATE_EVENT: "CONFIG_UPDATE_NOT_CONFIG_UPDATE_EVENT",
  /** An event version other than 0. */
  UNSUPPORTED_VERSION: "CONFIG_UPDATE_UNSUPPORTED_VERSION",
  /** An update type this node does not know (8 and above). */
  UNKNOWN_TYPE: "CONFIG_UPDATE_UNKNOWN_TYPE",
  /** Log data not 96 bytes (128 for fee scalars). */
  BAD_DATA_LENGTH: "CONFIG_UPDATE_BAD_DATA_LENGTH",
  /** The ABI offset word is not 32. */
  BAD_POINTER: "CONFIG_UPDATE_BAD_POINTER",
  /** The ABI length word is not the type's payload length. */
  BAD_PAYLOAD_LENGTH: "CONFIG_UPDATE_BAD_PAYLOAD_LENGTH",
  /** A payload value that does not fit its type (address padding, uint64/uint16 overflow, half-zero EIP-1559 params). */
  BAD_VALUE: "CONFIG_UPDATE_BAD_VALUE",
  /** Ecotone rules: a fee-scalars update whose scalar is not a valid versioned scalar; the old scalar is kept. */
  INVALID_ECOTONE_SCALAR: "CONFIG_UPDATE_INVALID_ECOTONE_SCALAR",
  /** Encoding: a value that does not fit its field. */
  VALUE_OUT_OF_RANGE: "CONFIG_UPDATE_VALUE_OUT_OF_RANGE",
} as const;
/** One of the {@link ConfigUpdateErrorCode} values. */
export type ConfigUpdateErrorCode = (typeof ConfigUpdateErrorCode)[keyof typeof ConfigUpdateErrorCode];

/** A {@link ConfigUpdateError}'s code with its metadata; `updateType` is decimal once known, words are 0x hex. */
type ConfigUpdateErrorType =
  | { code: typeof ConfigUpdateErrorCode.TOPIC_COUNT; topics: number }
  | { code: typeof ConfigUpdateErrorCode.NOT_CONFIG_UPDATE_EVENT; topic0: string }
  | { code: typeof ConfigUpdateErrorCode.UNSUPPORTED_VERSION; version: string }
  | { code: typeof ConfigUpdateErrorCode.UNKNOWN_TYPE; updateType: string }
  | { code: typeof ConfigUpdateErrorCode.BAD_DATA_LENGTH; updateType: string; length: number; expected: number }
  | { code: typeof ConfigUpdateErrorCode.BAD_POINTER; updateType: string; pointer: string }
  | { code: typeof ConfigUpdateErrorCode.BAD_PAYLOAD_LENGTH; updateType: string; length: string; expected: number }
  | { code: typeof ConfigUpdateErrorCode.BAD_VALUE; updateType: string; field: string; value: string }
  | { code: typeof ConfigUpdateErrorCode.INVALID_ECOTONE_SCALAR; scalar: string }
  | { code: typeof ConfigUpdateErrorCode.VALUE_OUT_OF_RANGE; field: string; value: string };

/** A `ConfigUpdate` log that is not applied (the reason), or an update the encoder cannot represent. */
export class ConfigUpdateError extends TypedError<ConfigUpdateErrorType> {}

/** The outcome of decoding one `ConfigUpdate` log: an update to apply, or a skipped log and why. */
export type ConfigUpdateDecoding = { kind: "update"; update: ConfigUpdate } | { kind: "skipped"; error: ConfigUpdateError };

/**
 * Whether fee-scalar updates follow Ecotone rules: Ecotone's (L2) activation time compared with the
 * **L1 block timestamp** of the log (kona genesis system/config.rs `update_with_receipts`;
 * op-node system_config.go `rollupCfg.IsEcotone(l1Time)`).
 */
export function isEcotoneAtL1Time(cfg: OpForkSchedule, l1Timestamp: bigint): boolean {
  const ecotone = cfg.forkTimes.ecotone;
  return ecotone !== undefined && l1Timestamp >= ecotone;
}

function uintAt(data: Uint8Array, start: number, end: number): bigint {
  let v = 0n;
  for (let i = start; i < end; i++) v = (v << 8n) | BigInt(data[i]!);
  return v;
}

/**
 * Whether `scalar` is a valid post-Ecotone SystemConfig scalar: version 0 with bytes [1,28) zero,
 * or version 1 with bytes [1,24) zero (kona rollup.rs `check_ecotone_l1_system_config_scalar`;
 * op-service eth `CheckEcotoneL1SystemConfigScalar`).
 */
export function isValidEcotoneScalar(scalar: bigint): boolean {
  const version = scalar >> 248n;
  if (version === 0n) return scalar >> 32n === 0n;
  if (version === 1n) return (scalar >> 64n) === 1n << 184n;
  return false;
}

/** A skip with the given reason. */
function skip(type: ConfigUpdateErrorType, message: string): ConfigUpdateDecoding {
  return { kind: "skipped", error: new ConfigUpdateError(type, message) };
}

/** The update's 32-byte (or, for fee scalars, 64-byte) payload after the ABI header checks, or the skip. */
function payloadOf(data: Uint8Array, updateType: string, payloadLength: number): Uint8Array | ConfigUpdateDecoding {
  const expected = 2 * WORD + payloadLength;
  if (data.length !== expected) {
    return skip(
      { code: ConfigUpdateErrorCode.BAD_DATA_LENGTH, updateType, length: data.length, expected },
      `ConfigUpdate type ${updateType} data has ${data.length} bytes, ${expected} expected`,
    );
  }
  const pointer = uintAt(data, 0, WORD);
  if (pointer !== BigInt(WORD)) {
    const hex = bytesToHex(data.subarray(0, WORD));
    return skip({ code: ConfigUpdateErrorCode.BAD_POINTER, updateType, pointer: hex }, `ConfigUpdate type ${updateType} data offset is ${hex}, 32 expected`);
  }
  const length = uintAt(data, WORD, 2 * WORD);
  if (length !== BigInt(payloadLength)) {
    return skip(
      { code: ConfigUpdateErrorCode.BAD_PAYLOAD_LENGTH, updateType, length: length.toString(), expected: payloadLength },
      `ConfigUpdate type ${updateType} payload length is ${length}, ${payloadLength} expected`,
    );
  }
  return data.subarray(2 * WORD);
}

/** The payload word as an unsigned integer of `bits` bits, or the skip when its high bytes are not zero. */
function uintWord(word: Uint8Array, bits: number, updateType: string, field: string): bigint | ConfigUpdateDecoding {
  const v = uintAt(word, 0, WORD);
  if (v >> BigInt(bits) !== 0n) {
    const value = bytesToHex(word);
    return skip({ code: ConfigUpdateErrorCode.BAD_VALUE, updateType, field, value }, `ConfigUpdate type ${updateType} ${field} ${value} does not fit uint${bits}`);
  }
  return v;
}

/** The payload word as a 20-byte address, or the skip when its 12 padding bytes are not zero. */
function addressWord(word: Uint8Array, updateType: string, field: string): Uint8Array | ConfigUpdateDecoding {
  const v = uintWord(word, 160, updateType, field);
  return typeof v === "bigint" ? word.slice(12) : v;
}

function isSkip(v: unknown): v is ConfigUpdateDecoding {
  return typeof v === "object" && v !== null && "kind" in v;
}

function update(u: ConfigUpdate): ConfigUpdateDecoding {
  return { kind: "update", update: u };
}

/** Decodes the payload of a known update type. */
function decodeTyped(type: ConfigUpdateTypeName, data: Uint8Array, ecotoneActive: boolean): ConfigUpdateDecoding {
  const t = String(ConfigUpdateType[type]);
  const payload = payloadOf(data, t, type === "feeScalars" ? 2 * WORD : WORD);
  if (isSkip(payload)) return payload;
  switch (type) {
    case "batcher": {
      const a = addressWord(payload, t, "batcherAddress");
      return isSkip(a) ? a : update({ type, batcherAddress: a });
    }
    case "unsafeBlockSigner": {
      const a = addressWord(payload, t, "unsafeBlockSigner");
      return isSkip(a) ? a : update({ type, unsafeBlockSigner: a });
    }
    case "feeScalars": {
      const overhead = uintAt(payload, 0, WORD);
      const scalar = uintAt(payload, WORD, 2 * WORD);
      if (!ecotoneActive) return update({ type, overhead, scalar });
      if (!isValidEcotoneScalar(scalar)) {
        const hex = bytesToHex(payload.subarray(WORD));
        return skip({ code: ConfigUpdateErrorCode.INVALID_ECOTONE_SCALAR, scalar: hex }, `ConfigUpdate fee scalar ${hex} is not a valid Ecotone scalar; the old scalar is kept`);
      }
      return update({ type, overhead: 0n, scalar });
    }
    case "gasLimit": {
      const v = uintWord(payload, 64, t, "gasLimit");
      return isSkip(v) ? v : update({ type, gasLimit: v });
    }
    case "eip1559Params": {
      const v = uintWord(payload, 64, t, "eip1559Params");
      if (isSkip(v)) return v;
      const denominator = Number(v >> 32n);
      const elasticity = Number(v & 0xffffffffn);
      if ((denominator === 0) !== (elasticity === 0)) {
        const value = bytesToHex(payload);
        const message = `ConfigUpdate EIP-1559 params ${value}: denominator ${denominator} and elasticity ${elasticity} must be both zero or both non-zero`;
        return skip({ code: ConfigUpdateErrorCode.BAD_VALUE, updateType: t, field: "eip1559Params", value }, message);
      }
      return update({ type, denominator, elasticity });
    }
    case "operatorFee":
      return update({ type, operatorFeeScalar: uintAt(payload, 20, 24), operatorFeeConstant: uintAt(payload, 24, 32) });
    case "minBaseFee": {
      const v = uintWord(payload, 64, t, "minBaseFee");
      return isSkip(v) ? v : update({ type, minBaseFee: v });
    }
    case "daFootprintGasScalar": {
      const v = uintWord(payload, 16, t, "daFootprintGasScalar");
      return isSkip(v) ? v : update({ type, daFootprintGasScalar: v });
    }
  }
}

const TYPE_NAMES = Object.keys(ConfigUpdateType) as ConfigUpdateTypeName[];

/**
 * Decodes one `ConfigUpdate` log. Never throws: a log that is not applied comes back as
 * `{ kind: "skipped", error }` with a {@link ConfigUpdateError} saying why (see the module comment
 * for the policy). `ecotoneActive` is {@link isEcotoneAtL1Time} at the log's L1 block.
 */
export function decodeConfigUpdateLog(log: Log, ecotoneActive: boolean): ConfigUpdateDecoding {
  if (log.topics.length !== 3) {
    return skip({ code: ConfigUpdateErrorCode.TOPIC_COUNT, topics: log.topics.length }, `ConfigUpdate log has ${log.topics.length} topics, 3 expected (event, version, updateType)`);
  }
  const [topic0, versionTopic, typeTopic] = log.topics as [Uint8Array, Uint8Array, Uint8Array];
  if (!bytesEqual(topic0, CONFIG_UPDATE_TOPIC_BYTES)) {
    const hex = bytesToHex(topic0);
    return skip({ code: ConfigUpdateErrorCode.NOT_CONFIG_UPDATE_EVENT, topic0: hex }, `log topic 0 ${hex} is not ConfigUpdate (${CONFIG_UPDATE_TOPIC})`);
  }
  if (uintAt(versionTopic, 0, versionTopic.length) !== CONFIG_UPDATE_VERSION_0) {
    const hex = bytesToHex(versionTopic);
    return skip({ code: ConfigUpdateErrorCode.UNSUPPORTED_VERSION, version: hex }, `ConfigUpdate version ${hex} is not supported (only version 0)`);
  }
  const typeNumber = uintAt(typeTopic, 0, typeTopic.length);
  const name = typeNumber < BigInt(TYPE_NAMES.length) ? TYPE_NAMES[Number(typeNumber)] : undefined;
  if (name === undefined) {
    const updateType = typeNumber.toString();
    return skip({ code: ConfigUpdateErrorCode.UNKNOWN_TYPE, updateType }, `ConfigUpdate type ${updateType} is unknown to this node; skipped`);
  }
  return decodeTyped(name, log.data, ecotoneActive);
}

function checkBits(v: bigint, field: string, bits: number): bigint {
  if (v < 0n || v >> BigInt(bits) !== 0n) {
    throw new ConfigUpdateError({ code: ConfigUpdateErrorCode.VALUE_OUT_OF_RANGE, field, value: v.toString() }, `ConfigUpdate ${field} ${v} does not fit uint${bits}`);
  }
  return v;
}

function checkU32(v: number, field: string): bigint {
  if (!Number.isInteger(v)) {
    throw new ConfigUpdateError({ code: ConfigUpdateErrorCode.VALUE_OUT_OF_RANGE, field, value: String(v) }, `ConfigUpdate ${field} ${v} is not an integer`);
  }
  return checkBits(BigInt(v), field, 32);
}

function wordOf(v: bigint, field: string, bits: number): Uint8Array {
  let x = checkBits(v, field, bits);
  const out = new Uint8Array(WORD);
  for (let i = WORD - 1; x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function addressToWord(a: Uint8Array, field: string): Uint8Array {
  if (a.length !== 20) {
    throw new ConfigUpdateError({ code: ConfigUpdateErrorCode.VALUE_OUT_OF_RANGE, field, value: bytesToHex(a) }, `ConfigUpdate ${field} is ${a.length} bytes, 20 expected`);
  }
  const out = new Uint8Array(WORD);
  out.set(a, 12);
  return out;
}

/** The ABI payload of an update, as the SystemConfig contract encodes it. */
function payloadOfUpdate(u: ConfigUpdate): Uint8Array {
  switch (u.type) {
    case "batcher":
      return addressToWord(u.batcherAddress, "batcherAddress");
    case "unsafeBlockSigner":
      return addressToWord(u.unsafeBlockSigner, "unsafeBlockSigner");
    case "feeScalars": {
      const out = new Uint8Array(2 * WORD);
      out.set(wordOf(u.overhead, "overhead", 256), 0);
      out.set(wordOf(u.scalar, "scalar", 256), WORD);
      return out;
    }
    case "gasLimit":
      return wordOf(u.gasLimit, "gasLimit", 64);
    case "eip1559Params":
      return wordOf((checkU32(u.denominator, "denominator") << 32n) | checkU32(u.elasticity, "elasticity"), "eip1559Params", 64);
    case "operatorFee":
      return wordOf((checkBits(u.operatorFeeScalar, "operatorFeeScalar", 32) << 64n) | checkBits(u.operatorFeeConstant, "operatorFeeConstant", 64), "operatorFee", 96);
    case "minBaseFee":
      return wordOf(u.minBaseFee, "minBaseFee", 64);
    case "daFootprintGasScalar":
      return wordOf(u.daFootprintGasScalar, "daFootprintGasScalar", 16);
  }
}

/**
 * The `ConfigUpdate` log the SystemConfig at `systemConfigAddress` emits for `update` (version 0,
 * ABI `bytes` data). Decoding it gives `update` back (a fee-scalars update decoded under Ecotone
 * rules comes back with overhead 0, as the Ecotone contract emits it anyway).
 * @throws ConfigUpdateError when a value does not fit its field.
 */
export function encodeConfigUpdateLog(update: ConfigUpdate, systemConfigAddress: Uint8Array): Log {
  const payload = payloadOfUpdate(update);
  const data = new Uint8Array(2 * WORD + payload.length);
  data.set(wordOf(BigInt(WORD), "pointer", 64), 0);
  data.set(wordOf(BigInt(payload.length), "length", 64), WORD);
  data.set(payload, 2 * WORD);
  return {
    address: systemConfigAddress,
    topics: [CONFIG_UPDATE_TOPIC_BYTES.slice(), new Uint8Array(WORD), wordOf(BigInt(ConfigUpdateType[update.type]), "updateType", 8)],
    data,
  };
}
