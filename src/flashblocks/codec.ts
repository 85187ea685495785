/**
 * Base flashblocks wire codec: `FlashblocksPayloadV1` frames as sent by Base's websocket proxy.
 *
 * Wire format (base/base `crates/common/flashblocks/src/{payload,metadata,block}.rs`, docs.base.org
 * "Flashblocks WebSocket Reference"): one JSON object per frame with snake_case keys
 * `payload_id, index, base (index 0 only), diff, metadata`; frames travel as text, as raw JSON bytes, or
 * brotli-compressed JSON (quality 5, lgwin 22). See /work/shared/reference/flashblocks.md §1.
 */
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from "node:zlib";
import { to0x, fromHex } from "../util/bytes.js";
import { FlashblockDecodeError, FlashblockErrorCode } from "./errors.js";
import { MAX_DECOMPRESSED_FLASHBLOCK_BYTES } from "./constants.js";
import { isHexData, isHexQuantity } from "../util/hex.js";

/** Flashblocks per payload are capped at 16 (base/base `MAX_FLASHBLOCKS_PER_PAYLOAD`); Base mainnet sends 0..10. */
export const MAX_FLASHBLOCKS_PER_PAYLOAD = 16;
/** Brotli quality used by Base's websocket proxy (`bin/websocket-proxy`, `--enable-compression`). */
const FLASHBLOCK_BROTLI_QUALITY = 5;
/** Brotli window (log2) used by Base's websocket proxy. */
const FLASHBLOCK_BROTLI_LGWIN = 22;

/** Largest u64 (quantities typed u64 on the wire: block number, gas, timestamp). */
const U64_MAX = (1n << 64n) - 1n;
/** Largest U256 (`base_fee_per_gas` is a U256). */
const U256_MAX = (1n << 256n) - 1n;
/** Byte length of a B256 hash / root. */
const HASH_BYTES = 32;
/** Byte length of an address. */
const ADDRESS_BYTES = 20;
/** Byte length of an engine PayloadId. */
const PAYLOAD_ID_BYTES = 8;
/** Byte length of a logs bloom (2048 bits). */
const BLOOM_BYTES = 256;
/** ASCII `{`, the first non-whitespace byte of a JSON frame (detection rule of §1.5). */
const OPEN_BRACE = "{";

/** Identity of one flashblock: block number and index (`prev_flashblock_id` wire form `"<block>-<index>"`). */
export interface FlashblockId {
  block: bigint;
  index: number;
}

/** `ExecutionPayloadBaseV1`: the block environment, sent on index 0 only. */
export interface FlashblockBase {
  parentBeaconBlockRoot: Uint8Array;
  parentHash: Uint8Array;
  feeRecipient: Uint8Array;
  prevRandao: Uint8Array;
  blockNumber: bigint;
  gasLimit: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  baseFeePerGas: bigint;
}

/** `ExecutionPayloadFlashblockDeltaV1`: cumulative roots/gas plus the transactions added by this flashblock only. */
interface FlashblockDiff {
  stateRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  gasUsed: bigint;
  blockHash: Uint8Array;
  /** EIP-2718 encoded transactions added in this flashblock. */
  transactions: Uint8Array[];
  /** Capella withdrawal objects, passed through untouched (always `[]` on Base). */
  withdrawals: unknown[];
  withdrawalsRoot: Uint8Array;
  /** Omitted on the wire when absent. */
  blobGasUsed?: bigint;
}

/** The part of `metadata` basalt uses; receipts, balances and access_list are accepted and ignored. */
interface FlashblockMetadata {
  blockNumber: bigint;
  /** Absent on pre-v1.1.1 streams (then the predecessor-link check is off). */
  prevFlashblockId?: FlashblockId;
}

/** One decoded flashblocks frame. */
export interface FlashblocksPayloadV1 {
  payloadId: Uint8Array;
  index: number;
  base?: FlashblockBase;
  diff: FlashblockDiff;
  metadata: FlashblockMetadata;
}

type Json = Record<string, unknown>;

function bad(field: string, message: string): FlashblockDecodeError {
  return new FlashblockDecodeError({ code: FlashblockErrorCode.BAD_FIELD, field }, `flashblock field ${field}: ${message}`);
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function objectField(o: Json, key: string, path: string): Json {
  const v = o[key];
  if (!isObject(v)) throw bad(path, v === undefined ? "missing, expected an object" : "expected a JSON object");
  return v;
}

function dataField(o: Json, key: string, path: string, length?: number): Uint8Array {
  const v = o[key];
  if (v === undefined) throw bad(path, "missing, expected 0x-prefixed hex data");
  if (!isHexData(v)) throw bad(path, "expected 0x-prefixed hex data of whole bytes");
  const bytes = fromHex(v);
  if (length !== undefined && bytes.length !== length) throw bad(path, `expected ${length} bytes, got ${bytes.length}`);
  return bytes;
}

function quantityField(o: Json, key: string, path: string, max: bigint): bigint {
  const v = o[key];
  if (v === undefined) throw bad(path, "missing, expected a hex quantity");
  if (!isHexQuantity(v)) {
    throw bad(path, "expected a hex quantity (0x-prefixed, no leading zeros)");
  }
  const n = BigInt(v);
  if (n > max) throw bad(path, `quantity ${v} exceeds its maximum ${to0xQuantity(max)}`);
  return n;
}

function plainIntegerField(o: Json, key: string, path: string): number {
  const v = o[key];
  if (v === undefined) throw bad(path, "missing, expected a plain JSON integer");
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw bad(path, "expected a plain non-negative JSON integer (not hex)");
  return v;
}

function to0xQuantity(n: bigint): string {
  return "0x" + n.toString(16);
}

function decodeBase(o: Json): FlashblockBase {
  return {
    parentBeaconBlockRoot: dataField(o, "parent_beacon_block_root", "base.parent_beacon_block_root", HASH_BYTES),
    parentHash: dataField(o, "parent_hash", "base.parent_hash", HASH_BYTES),
    feeRecipient: dataField(o, "fee_recipient", "base.fee_recipient", ADDRESS_BYTES),
    prevRandao: dataField(o, "prev_randao", "base.prev_randao", HASH_BYTES),
    blockNumber: quantityField(o, "block_number", "base.block_number", U64_MAX),
    gasLimit: quantityField(o, "gas_limit", "base.gas_limit", U64_MAX),
    timestamp: quantityField(o, "timestamp", "base.timestamp", U64_MAX),
    extraData: dataField(o, "extra_data", "base.extra_data"),
    baseFeePerGas: quantityField(o, "base_fee_per_gas", "base.base_fee_per_gas", U256_MAX),
  };
}

function decodeDiff(o: Json): FlashblockDiff {
  const txs = o["transactions"];
  if (!Array.isArray(txs)) throw bad("diff.transactions", txs === undefined ? "missing, expected an array" : "expected an array");
  const transactions = txs.map((_, i) => dataField(txs as unknown as Json, String(i), `diff.transactions[${i}]`));
  const withdrawals = o["withdrawals"];
  if (!Array.isArray(withdrawals)) throw bad("diff.withdrawals", withdrawals === undefined ? "missing, expected an array" : "expected an array");
  const diff: FlashblockDiff = {
    stateRoot: dataField(o, "state_root", "diff.state_root", HASH_BYTES),
    receiptsRoot: dataField(o, "receipts_root", "diff.receipts_root", HASH_BYTES),
    logsBloom: dataField(o, "logs_bloom", "diff.logs_bloom", BLOOM_BYTES),
    gasUsed: quantityField(o, "gas_used", "diff.gas_used", U64_MAX),
    blockHash: dataField(o, "block_hash", "diff.block_hash", HASH_BYTES),
    transactions,
    withdrawals: [...withdrawals],
    withdrawalsRoot: dataField(o, "withdrawals_root", "diff.withdrawals_root", HASH_BYTES),
  };
  if (o["blob_gas_used"] !== undefined && o["blob_gas_used"] !== null) {
    diff.blobGasUsed = quantityField(o, "blob_gas_used", "diff.blob_gas_used", U64_MAX);
  }
  return diff;
}

/** Parses `"<decimal block>-<decimal index>"` (base/base `FlashblockId` compact key, e.g. `"123-4"`). */
function parseFlashblockId(v: unknown): FlashblockId {
  const path = "metadata.prev_flashblock_id";
  if (typeof v !== "string") throw bad(path, "expected a string \"<block>-<index>\"");
  const m = /^(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$/.exec(v);
  if (!m) throw bad(path, `expected "<decimal block>-<decimal index>", got ${JSON.stringify(v)}`);
  const block = BigInt(m[1]!);
  const index = Number(m[2]!);
  if (block > U64_MAX || !Number.isSafeInteger(index)) throw bad(path, "block or index out of range");
  return { block, index };
}

function decodeMetadata(o: Json): FlashblockMetadata {
  const metadata: FlashblockMetadata = { blockNumber: BigInt(plainIntegerField(o, "block_number", "metadata.block_number")) };
  const prev = o["prev_flashblock_id"];
  if (prev !== undefined && prev !== null) metadata.prevFlashblockId = parseFlashblockId(prev);
  return metadata;
}

/** Validates a parsed JSON value as a `FlashblocksPayloadV1` (all field, encoding and cross-field rules of §1.1–1.4). */
function flashblockFromJson(value: unknown): FlashblocksPayloadV1 {
  if (!isObject(value)) throw new FlashblockDecodeError({ code: FlashblockErrorCode.MALFORMED_JSON }, "flashblock frame: top-level JSON value is not an object");
  const payloadId = dataField(value, "payload_id", "payload_id", PAYLOAD_ID_BYTES);
  const index = plainIntegerField(value, "index", "index");
  if (index >= MAX_FLASHBLOCKS_PER_PAYLOAD) throw bad("index", `index ${index} is not below MAX_FLASHBLOCKS_PER_PAYLOAD (${MAX_FLASHBLOCKS_PER_PAYLOAD})`);
  const diff = decodeDiff(objectField(value, "diff", "diff"));
  const metadata = decodeMetadata(objectField(value, "metadata", "metadata"));
  const rawBase = value["base"];
  const payload: FlashblocksPayloadV1 = { payloadId, index, diff, metadata };
  if (index === 0) {
    if (rawBase === undefined || rawBase === null) throw bad("base", "missing, expected on an index-0 flashblock");
    if (!isObject(rawBase)) throw bad("base", "expected a JSON object");
    payload.base = decodeBase(rawBase);
    if (payload.base.blockNumber !== metadata.blockNumber) {
      throw bad("base.block_number", `base.block_number ${payload.base.blockNumber} differs from metadata.block_number ${metadata.blockNumber}`);
    }
  } else if (rawBase !== undefined && rawBase !== null) {
    throw bad("base", `present on index ${index}, expected only on index 0`);
  }
  return payload;
}

/** Text of a JSON frame, or undefined when the bytes are not UTF-8 text starting with `{` after leading whitespace. */
function jsonTextOf(bytes: Uint8Array): string | undefined {
  // Most brotli streams fail at the first byte: past ASCII whitespace, an ASCII byte other than
  // `{` cannot start JSON text (non-ASCII ones, such as a BOM, take the full check below).
  let i = 0;
  while (i < bytes.length && (bytes[i] === 0x20 || (bytes[i]! >= 0x09 && bytes[i]! <= 0x0d))) i++;
  if (i < bytes.length && bytes[i]! < 0x80 && bytes[i] !== 0x7b) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return text.trimStart().startsWith(OPEN_BRACE) ? text : undefined;
}

function decompress(bytes: Uint8Array): string {
  let out: Buffer;
  try {
    out = brotliDecompressSync(bytes, { maxOutputLength: MAX_DECOMPRESSED_FLASHBLOCK_BYTES });
  } catch (e) {
    if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || e instanceof RangeError) {
      throw new FlashblockDecodeError({ code: FlashblockErrorCode.TOO_LARGE }, `flashblock frame decompresses to more than MAX_DECOMPRESSED_FLASHBLOCK_BYTES (${MAX_DECOMPRESSED_FLASHBLOCK_BYTES} bytes)`, { cause: e });
    }
    throw new FlashblockDecodeError({ code: FlashblockErrorCode.BAD_COMPRESSION }, "flashblock frame is neither JSON text nor a valid brotli stream", { cause: e });
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(out);
  } catch (e) {
    throw new FlashblockDecodeError({ code: FlashblockErrorCode.BAD_UTF8 }, "decompressed flashblock frame is not valid UTF-8", { cause: e });
  }
}

/**
 * Decodes one websocket frame (text or binary) into a validated `FlashblocksPayloadV1`.
 *
 * Detection rule (base/base `Flashblock::try_decode_message`, §1.5): bytes that are valid UTF-8 and start with
 * `{` after leading whitespace are JSON; anything else is brotli-decompressed (capped at
 * `MAX_DECOMPRESSED_FLASHBLOCK_BYTES`), then read as UTF-8 JSON. Throws `FlashblockDecodeError`.
 */
export function decodeFlashblockFrame(frame: Uint8Array | string): FlashblocksPayloadV1 {
  const bytes = typeof frame === "string" ? new TextEncoder().encode(frame) : frame;
  let text = jsonTextOf(bytes);
  if (text !== undefined) {
    if (bytes.length > MAX_DECOMPRESSED_FLASHBLOCK_BYTES) {
      throw new FlashblockDecodeError({ code: FlashblockErrorCode.TOO_LARGE }, `flashblock frame of ${bytes.length} bytes exceeds ${MAX_DECOMPRESSED_FLASHBLOCK_BYTES}`);
    }
  } else {
    text = decompress(bytes);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new FlashblockDecodeError({ code: FlashblockErrorCode.MALFORMED_JSON }, `flashblock frame is not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  return flashblockFromJson(value);
}

/** Formats a `FlashblockId` in its wire form `"<block>-<index>"`. */
function formatFlashblockId(id: FlashblockId): string {
  return `${id.block}-${id.index}`;
}

/** The wire JSON object of a payload, keys in Base's order `payload_id, index, base, diff, metadata`. */
export function flashblockToJson(p: FlashblocksPayloadV1): Json {
  const out: Json = { payload_id: to0x(p.payloadId), index: p.index };
  if (p.base) {
    const b = p.base;
    out["base"] = {
      parent_beacon_block_root: to0x(b.parentBeaconBlockRoot),
      parent_hash: to0x(b.parentHash),
      fee_recipient: to0x(b.feeRecipient),
      prev_randao: to0x(b.prevRandao),
      block_number: to0xQuantity(b.blockNumber),
      gas_limit: to0xQuantity(b.gasLimit),
      timestamp: to0xQuantity(b.timestamp),
      extra_data: to0x(b.extraData),
      base_fee_per_gas: to0xQuantity(b.baseFeePerGas),
    };
  }
  const d = p.diff;
  const diff: Json = {
    state_root: to0x(d.stateRoot),
    receipts_root: to0x(d.receiptsRoot),
    logs_bloom: to0x(d.logsBloom),
    gas_used: to0xQuantity(d.gasUsed),
    block_hash: to0x(d.blockHash),
    transactions: d.transactions.map(to0x),
    withdrawals: d.withdrawals,
    withdrawals_root: to0x(d.withdrawalsRoot),
  };
  if (d.blobGasUsed !== undefined) diff["blob_gas_used"] = to0xQuantity(d.blobGasUsed);
  out["diff"] = diff;
  const metadata: Json = { block_number: Number(p.metadata.blockNumber) };
  if (p.metadata.prevFlashblockId) metadata["prev_flashblock_id"] = formatFlashblockId(p.metadata.prevFlashblockId);
  out["metadata"] = metadata;
  return out;
}

/**
 * Encodes a payload as Base's wire JSON (newest metadata era: `{block_number, prev_flashblock_id}`); with
 * `compress` the JSON is brotli-compressed at quality 5 / lgwin 22 like Base's websocket proxy, else returned as text.
 */
export function encodeFlashblock(p: FlashblocksPayloadV1, opts: { compress: boolean }): Uint8Array | string {
  const json = JSON.stringify(flashblockToJson(p));
  if (!opts.compress) return json;
  const out = brotliCompressSync(Buffer.from(json, "utf8"), {
    params: {
      [zlibConstants.BROTLI_PARAM_QUALITY]: FLASHBLOCK_BROTLI_QUALITY,
      [zlibConstants.BROTLI_PARAM_LGWIN]: FLASHBLOCK_BROTLI_LGWIN,
    },
  });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
