/**
 * User deposits on L1: the OptimismPortal's
 * `TransactionDeposited(address indexed from, address indexed to, uint256 indexed version, bytes opaqueData)`
 * log, decoded into the deposit transaction (type 0x7e) it forces into L2, and the inverse
 * encoder (for a local L1 and tests).
 *
 * Sources: specs deposits.md "Deposit Contract" / "User-Deposited Transactions"; op-node
 * op-node/rollup/derive/deposit_log.go (`UnmarshalDepositLogEvent`, `MarshalDepositLogEvent`);
 * kona crates/protocol/protocol/src/deposits.rs (`decode_deposit`).
 *
 * Log layout: topics = [`TRANSACTION_DEPOSITED_TOPIC`, from (address, left-padded), to (address,
 * left-padded), version (uint256, only 0)]; data = ABI `bytes opaqueData`: word 0 the offset (32),
 * word 1 the length L, then L bytes zero-padded to a multiple of 32. Version-0 `opaqueData` is
 * packed: mint uint256 [0,32) · value uint256 [32,64) · gasLimit uint64 [64,72) · isCreation uint8
 * [72] · calldata [73,L). `isCreation ≠ 0` makes `to` empty (a contract creation).
 *
 * Strictness: the union of op-node's and kona's checks, so any log either rejects is rejected:
 * exactly 4 topics, data ≥ 64 bytes and a multiple of 32, address topics with zero padding
 * (kona), offset exactly 32, a length that fits uint64 and the data, minimal padding (op-node: the
 * data ends at the first 32-byte boundary after the content) made of zero bytes (kona), version 0,
 * L ≥ 73. `mint` is read as the full uint256 (op-node, specs; kona keeps only the low 128 bits —
 * no real portal can emit a larger mint). A malformed deposit log is a critical derivation error:
 * deposits can never be skipped (op-node derive/attributes.go).
 */
import { Address, bytesToHex } from "@ethereumjs/util";
import { DEPOSIT_EVENT_VERSION_0, DEPOSIT_OPAQUE_DATA_V0_MIN_LENGTH, TRANSACTION_DEPOSITED_TOPIC } from "../constants.js";
import type { Log } from "../../storage/types.js";
import { bytesEqual, fromHex } from "../../util/bytes.js";
import { TypedError } from "../../util/errors.js";
import { DepositTransaction, type DepositTxFields } from "./depositTx.js";
import { userDepositSourceHash } from "./sourceHash.js";

/** ABI word size. */
const WORD = 32;
/** Topic 0 of `TransactionDeposited`, as bytes. */
export const TRANSACTION_DEPOSITED_TOPIC_BYTES = fromHex(TRANSACTION_DEPOSITED_TOPIC);
/** Largest uint64 (gas limit, ABI length). */
const U64_MAX = (1n << 64n) - 1n;
/** Largest uint256 (mint, value). */
const U256_MAX = (1n << 256n) - 1n;

/** Stable codes of {@link DepositLogError}. */
export const DepositLogErrorCode = {
  /** Not exactly 4 topics (selector, from, to, version). */
  TOPIC_COUNT: "DEPOSIT_LOG_TOPIC_COUNT",
  /** Topic 0 is not `TransactionDeposited`. */
  NOT_DEPOSIT_EVENT: "DEPOSIT_LOG_NOT_DEPOSIT_EVENT",
  /** The `from` or `to` topic is not a left-padded address. */
  BAD_ADDRESS_TOPIC: "DEPOSIT_LOG_BAD_ADDRESS_TOPIC",
  /** Log data shorter than the 64-byte offset and length words. */
  DATA_TOO_SHORT: "DEPOSIT_LOG_DATA_TOO_SHORT",
  /** Log data not a multiple of 32 bytes. */
  DATA_UNALIGNED: "DEPOSIT_LOG_DATA_UNALIGNED",
  /** The ABI offset word of `opaqueData` is not 32. */
  BAD_OFFSET: "DEPOSIT_LOG_BAD_OFFSET",
  /** The ABI length of `opaqueData` exceeds uint64 or the data, or the data is padded beyond the next 32-byte boundary. */
  BAD_LENGTH: "DEPOSIT_LOG_BAD_LENGTH",
  /** Non-zero bytes in the padding after `opaqueData`. */
  BAD_PADDING: "DEPOSIT_LOG_BAD_PADDING",
  /** A deposit version other than 0. */
  UNSUPPORTED_VERSION: "DEPOSIT_LOG_UNSUPPORTED_VERSION",
  /** Version-0 `opaqueData` shorter than 73 bytes. */
  OPAQUE_DATA_TOO_SHORT: "DEPOSIT_LOG_OPAQUE_DATA_TOO_SHORT",
  /** Encoding: a deposit value that does not fit its field. */
  VALUE_OUT_OF_RANGE: "DEPOSIT_LOG_VALUE_OUT_OF_RANGE",
} as const;
/** One of the {@link DepositLogErrorCode} values. */
export type DepositLogErrorCode = (typeof DepositLogErrorCode)[keyof typeof DepositLogErrorCode];

/** A {@link DepositLogError}'s code with its metadata (hex strings 0x-prefixed, lengths in bytes). */
type DepositLogErrorType =
  | { code: typeof DepositLogErrorCode.TOPIC_COUNT; topics: number }
  | { code: typeof DepositLogErrorCode.NOT_DEPOSIT_EVENT; topic0: string }
  | { code: typeof DepositLogErrorCode.BAD_ADDRESS_TOPIC; field: "from" | "to"; topic: string }
  | { code: typeof DepositLogErrorCode.DATA_TOO_SHORT; length: number }
  | { code: typeof DepositLogErrorCode.DATA_UNALIGNED; length: number }
  | { code: typeof DepositLogErrorCode.BAD_OFFSET; offset: string }
  /** `length`: the ABI length word (decimal); `available`: data bytes after the two header words. */
  | { code: typeof DepositLogErrorCode.BAD_LENGTH; length: string; available: number }
  | { code: typeof DepositLogErrorCode.BAD_PADDING; padding: string }
  | { code: typeof DepositLogErrorCode.UNSUPPORTED_VERSION; version: string }
  | { code: typeof DepositLogErrorCode.OPAQUE_DATA_TOO_SHORT; length: number }
  | { code: typeof DepositLogErrorCode.VALUE_OUT_OF_RANGE; field: string; value: string };

/** A malformed `TransactionDeposited` log (critical for derivation), or a deposit the encoder cannot represent. */
export class DepositLogError extends TypedError<DepositLogErrorType> {}

function uintAt(data: Uint8Array, start: number, end: number): bigint {
  let v = 0n;
  for (let i = start; i < end; i++) v = (v << 8n) | BigInt(data[i]!);
  return v;
}

function putUint(out: Uint8Array, end: number, v: bigint): void {
  let x = v;
  for (let i = end - 1; x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

function leftPad32(a: Uint8Array): Uint8Array {
  const out = new Uint8Array(WORD);
  out.set(a, WORD - a.length);
  return out;
}

function allZero(b: Uint8Array): boolean {
  return b.every((x) => x === 0);
}

function addressOfTopic(topic: Uint8Array, field: "from" | "to"): Address {
  if (topic.length !== WORD || !allZero(topic.subarray(0, 12))) {
    const message = `deposit log ${field} topic ${bytesToHex(topic)} is not a left-padded 20-byte address`;
    throw new DepositLogError({ code: DepositLogErrorCode.BAD_ADDRESS_TOPIC, field, topic: bytesToHex(topic) }, message);
  }
  return new Address(topic.slice(12));
}

/** Whether `log` is a `TransactionDeposited` event (by topic 0; decoding may still fail). */
export function isTransactionDepositedLog(log: Log): boolean {
  const topic0 = log.topics[0];
  return topic0 !== undefined && bytesEqual(topic0, TRANSACTION_DEPOSITED_TOPIC_BYTES);
}

/** The `opaqueData` of a `TransactionDeposited` log, after the ABI checks (see the module comment). */
function opaqueDataOf(data: Uint8Array): Uint8Array {
  if (data.length < 2 * WORD) {
    const message = `deposit log data has ${data.length} bytes, at least 64 (opaqueData offset and length words) expected`;
    throw new DepositLogError({ code: DepositLogErrorCode.DATA_TOO_SHORT, length: data.length }, message);
  }
  if (data.length % WORD !== 0) {
    const message = `deposit log data has ${data.length} bytes, a multiple of 32 expected`;
    throw new DepositLogError({ code: DepositLogErrorCode.DATA_UNALIGNED, length: data.length }, message);
  }
  const offset = uintAt(data, 0, WORD);
  if (offset !== BigInt(WORD)) {
    const message = `deposit log opaqueData offset is ${offset}, 32 expected`;
    throw new DepositLogError({ code: DepositLogErrorCode.BAD_OFFSET, offset: `0x${offset.toString(16)}` }, message);
  }
  const length = uintAt(data, WORD, 2 * WORD);
  const available = data.length - 2 * WORD;
  // Minimal padding: the data must end at the first 32-byte boundary at or after the content.
  if (length > U64_MAX || length > BigInt(available) || length + BigInt(WORD) <= BigInt(available)) {
    const message = `deposit log opaqueData length ${length} does not match the ${available} bytes after the header (content plus padding to 32 bytes expected)`;
    throw new DepositLogError({ code: DepositLogErrorCode.BAD_LENGTH, length: length.toString(), available }, message);
  }
  const end = 2 * WORD + Number(length);
  const padding = data.subarray(end);
  if (!allZero(padding)) {
    const message = `deposit log opaqueData padding ${bytesToHex(padding)} is not all zero`;
    throw new DepositLogError({ code: DepositLogErrorCode.BAD_PADDING, padding: bytesToHex(padding) }, message);
  }
  return data.subarray(2 * WORD, end);
}

/**
 * Decodes a `TransactionDeposited` log into its deposit transaction: `sourceHash` = user-deposit
 * domain 0 over (`l1BlockHash`, `logIndex`), where `logIndex` is the log's index in the whole L1
 * block (not in its receipt); `isSystemTx` false; `to` undefined for a creation.
 * @throws DepositLogError for any malformed log (see the module comment for the checks).
 */
export function decodeDepositLog(log: Log, l1BlockHash: Uint8Array, logIndex: bigint | number): DepositTransaction {
  if (log.topics.length !== 4) {
    const message = `deposit log has ${log.topics.length} topics, 4 expected (event, indexed from, indexed to, indexed version)`;
    throw new DepositLogError({ code: DepositLogErrorCode.TOPIC_COUNT, topics: log.topics.length }, message);
  }
  const [topic0, fromTopic, toTopic, versionTopic] = log.topics as [Uint8Array, Uint8Array, Uint8Array, Uint8Array];
  if (!bytesEqual(topic0, TRANSACTION_DEPOSITED_TOPIC_BYTES)) {
    const message = `log topic 0 ${bytesToHex(topic0)} is not TransactionDeposited (${TRANSACTION_DEPOSITED_TOPIC})`;
    throw new DepositLogError({ code: DepositLogErrorCode.NOT_DEPOSIT_EVENT, topic0: bytesToHex(topic0) }, message);
  }
  const from = addressOfTopic(fromTopic, "from");
  const to = addressOfTopic(toTopic, "to");
  const opaque = opaqueDataOf(log.data);
  if (versionTopic.length !== WORD || uintAt(versionTopic, 0, versionTopic.length) !== DEPOSIT_EVENT_VERSION_0) {
    const message = `deposit log version ${bytesToHex(versionTopic)} is not supported (only version 0)`;
    throw new DepositLogError({ code: DepositLogErrorCode.UNSUPPORTED_VERSION, version: bytesToHex(versionTopic) }, message);
  }
  if (opaque.length < DEPOSIT_OPAQUE_DATA_V0_MIN_LENGTH) {
    const message = `version-0 deposit opaqueData has ${opaque.length} bytes, at least ${DEPOSIT_OPAQUE_DATA_V0_MIN_LENGTH} expected (mint, value, gas, isCreation)`;
    throw new DepositLogError({ code: DepositLogErrorCode.OPAQUE_DATA_TOO_SHORT, length: opaque.length }, message);
  }
  return new DepositTransaction({
    sourceHash: userDepositSourceHash(l1BlockHash, logIndex),
    from,
    to: opaque[72] === 0 ? to : undefined,
    mint: uintAt(opaque, 0, 32),
    value: uintAt(opaque, 32, 64),
    gasLimit: uintAt(opaque, 64, 72),
    isSystemTx: false,
    data: opaque.slice(73),
  });
}

/** The fields of a user deposit the portal's event carries (its source hash comes from where the log lands). */
export type DepositLogFields = Pick<DepositTxFields, "from" | "to" | "mint" | "value" | "gasLimit" | "data">;

function checkRange(field: string, v: bigint, max: bigint): bigint {
  if (v < 0n || v > max) {
    throw new DepositLogError({ code: DepositLogErrorCode.VALUE_OUT_OF_RANGE, field, value: v.toString() }, `deposit ${field} ${v} does not fit its field`);
  }
  return v;
}

/**
 * The `TransactionDeposited` log the portal at `portalAddress` emits for `deposit` (version 0,
 * minimal zero padding; `to` undefined → zero `to` topic and `isCreation` 1), as op-node
 * `MarshalDepositLogEvent` writes it. Its decoding gives back `deposit` with the source hash of
 * wherever the log is placed.
 * @throws DepositLogError when mint/value exceed uint256 or the gas limit exceeds uint64.
 */
export function encodeDepositLog(deposit: DepositLogFields, portalAddress: Uint8Array): Log {
  const mint = checkRange("mint", deposit.mint, U256_MAX);
  const value = checkRange("value", deposit.value, U256_MAX);
  const gasLimit = checkRange("gasLimit", deposit.gasLimit, U64_MAX);
  const opaqueLength = DEPOSIT_OPAQUE_DATA_V0_MIN_LENGTH + deposit.data.length;
  const data = new Uint8Array(2 * WORD + Math.ceil(opaqueLength / WORD) * WORD);
  putUint(data, WORD, BigInt(WORD));
  putUint(data, 2 * WORD, BigInt(opaqueLength));
  const o = 2 * WORD;
  putUint(data, o + 32, mint);
  putUint(data, o + 64, value);
  putUint(data, o + 72, gasLimit);
  data[o + 72] = deposit.to === undefined ? 1 : 0;
  data.set(deposit.data, o + 73);
  return {
    address: portalAddress,
    topics: [
      TRANSACTION_DEPOSITED_TOPIC_BYTES.slice(),
      leftPad32(deposit.from.bytes),
      deposit.to === undefined ? new Uint8Array(WORD) : leftPad32(deposit.to.bytes),
      new Uint8Array(WORD),
    ],
    data,
  };
}
