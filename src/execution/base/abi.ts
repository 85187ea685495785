/**
 * Solidity ABI encoding and decoding for the Base native precompiles, with the checks and the
 * error messages of alloy-sol-types (what base/base's dispatchers decode with), because a
 * decoding failure's message is part of the revert data (`selector ‖ utf8(message)`).
 *
 * Types are Solidity type strings: `address`, `bool`, `uint<N>`, `int<N>`, `bytes<N>`, `bytes`,
 * `string`, `T[]`, `T[k]` and tuples `(T1,T2,…)`. Values: `address` and `bytes<N>`/`bytes` as
 * `Uint8Array`, integers as `bigint`, `bool` as boolean, `string` as a JS string (UTF-8), arrays
 * and tuples as JS arrays.
 *
 * Decoding checks what alloy's `type_check` checks: an `address` word's 12 leading bytes are
 * zero, a `uint<N>` fits N bits, an `int<N>` is a sign-extended N-bit value, a `bool` is 0 or 1,
 * a `bytes<N>` word is zero after its N bytes, a `string` is valid UTF-8; a Solidity `enum` of
 * N members is written `uint8enum<N>` (e.g. `uint8enum3`): a `uint8` below N, printed as `uint8`
 * in messages (alloy's `SolEnum` check). A bare `uint8enum` is a `uint8` the caller range-checks
 * (see {@link AbiTypeCheckError}).
 */
import { keccak256 } from "../../util/keccak.js";

/** A decoded (or to-be-encoded) ABI value. */
export type AbiValue = bigint | boolean | string | Uint8Array | AbiValue[];

/**
 * Data too short for what its types need (alloy: `Error::Overrun`). The message is alloy-sol-types
 * 1.x's `Display` ("ABI decoding failed: " prefix; base/base pins alloy-sol-types 1.5), which an
 * `AbiDecodeFailed` revert carries on the wire.
 */
export class AbiOverrunError extends Error {
  constructor() {
    super("ABI decoding failed: buffer overrun while deserializing");
    this.name = "AbiOverrunError";
  }
}

/**
 * A value does not fit its type (alloy: `Error::TypeCheckFail`): the message names the type and
 * the hex of the data, as alloy prints it.
 */
export class AbiTypeCheckError extends Error {
  constructor(expectedType: string, dataHex: string) {
    super(`type check failed for "${expectedType}" with data: ${dataHex}`);
    this.name = "AbiTypeCheckError";
  }
}

/** The first 4 bytes of keccak256 of a function or error signature, e.g. `transfer(address,uint256)`. */
export function selectorOf(signature: string): Uint8Array {
  return keccak256(new TextEncoder().encode(signature)).slice(0, 4);
}

/** keccak256 of an event signature (its topic 0). */
export function eventTopic(signature: string): Uint8Array {
  return keccak256(new TextEncoder().encode(signature));
}

// --- type parsing ---

/** A parsed ABI type. */
type AbiType =
  | { kind: "address" | "bool" | "bytes" | "string" }
  | { kind: "uint" | "int"; bits: number; enumCount?: number }
  | { kind: "fixedBytes"; size: number }
  | { kind: "array"; of: AbiType; length: number | undefined }
  | { kind: "tuple"; of: AbiType[] };

const parsed = new Map<string, AbiType>();

/** Splits a tuple's inner type list at top-level commas. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  if (s.length > 0) out.push(s.slice(start));
  return out;
}

/** Parses a Solidity type string (cached). Throws on a malformed type: a programming error. */
function parseAbiType(type: string): AbiType {
  const hit = parsed.get(type);
  if (hit !== undefined) return hit;
  let t: AbiType;
  const arr = /^(.*)\[(\d*)\]$/.exec(type);
  if (arr !== null) t = { kind: "array", of: parseAbiType(arr[1]!), length: arr[2] === "" ? undefined : Number(arr[2]) };
  else if (type.startsWith("(") && type.endsWith(")")) t = { kind: "tuple", of: splitTopLevel(type.slice(1, -1)).map(parseAbiType) };
  else if (type === "address" || type === "bool" || type === "bytes" || type === "string") t = { kind: type };
  else if (/^uint\d*$/.test(type)) t = { kind: "uint", bits: type === "uint" ? 256 : Number(type.slice(4)) };
  else if (/^int\d*$/.test(type)) t = { kind: "int", bits: type === "int" ? 256 : Number(type.slice(3)) };
  else if (/^bytes\d+$/.test(type)) t = { kind: "fixedBytes", size: Number(type.slice(5)) };
  else if (type === "uint8enum") t = { kind: "uint", bits: 8 };
  else if (/^uint8enum\d+$/.test(type)) t = { kind: "uint", bits: 8, enumCount: Number(type.slice(9)) };
  else throw new Error(`unsupported ABI type ${type}`);
  parsed.set(type, t);
  return t;
}

/** Whether a type's encoding has a dynamic part (is referenced by an offset in its parent). */
function isDynamic(t: AbiType): boolean {
  if (t.kind === "bytes" || t.kind === "string") return true;
  if (t.kind === "array") return t.length === undefined || isDynamic(t.of);
  if (t.kind === "tuple") return t.of.some(isDynamic);
  return false;
}

/** Bytes a type takes in its parent's head. */
function headSize(t: AbiType): number {
  if (isDynamic(t)) return 32;
  if (t.kind === "array") return t.length! * headSize(t.of);
  if (t.kind === "tuple") return t.of.reduce((n, x) => n + headSize(x), 0);
  return 32;
}

/** The canonical type string of a parsed type (as alloy prints it in messages). */
function abiTypeName(t: AbiType): string {
  switch (t.kind) {
    case "uint":
    case "int":
      return `${t.kind}${t.bits}`;
    case "fixedBytes":
      return `bytes${t.size}`;
    case "array":
      return `${abiTypeName(t.of)}[${t.length ?? ""}]`;
    case "tuple":
      return `(${t.of.map(abiTypeName).join(",")})`;
    default:
      return t.kind;
  }
}

// --- encoding ---

const WORD = 32;
const TWO_256 = 1n << 256n;

function word(v: bigint): Uint8Array {
  const out = new Uint8Array(WORD);
  let x = v < 0n ? v + TWO_256 : v;
  for (let i = WORD - 1; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function padRight(b: Uint8Array): Uint8Array {
  const n = Math.ceil(b.length / WORD) * WORD;
  if (n === b.length) return b;
  const out = new Uint8Array(n);
  out.set(b);
  return out;
}

/** A leaf word kept as it was in the data (for alloy's type-check message, which prints the words as given). */
class RawWord {
  constructor(readonly bytes: Uint8Array) {}
}

function encodeValue(t: AbiType, v: AbiValue): Uint8Array {
  if (v instanceof RawWord) return v.bytes;
  switch (t.kind) {
    case "address": {
      const out = new Uint8Array(WORD);
      out.set(v as Uint8Array, 12);
      return out;
    }
    case "bool":
      return word(v ? 1n : 0n);
    case "uint":
    case "int":
      return word(v as bigint);
    case "fixedBytes": {
      const out = new Uint8Array(WORD);
      out.set((v as Uint8Array).subarray(0, t.size));
      return out;
    }
    case "bytes":
    case "string": {
      // A string may come as its raw bytes (a type-check message re-encodes the data as given).
      const b = typeof v === "string" ? new TextEncoder().encode(v) : (v as Uint8Array);
      return concat([word(BigInt(b.length)), padRight(b)]);
    }
    case "array": {
      const items = v as AbiValue[];
      const body = encodeSequence(
        items.map(() => t.of),
        items,
      );
      return t.length === undefined ? concat([word(BigInt(items.length)), body]) : body;
    }
    case "tuple":
      return encodeSequence(t.of, v as AbiValue[]);
  }
}

function encodeSequence(types: AbiType[], values: AbiValue[]): Uint8Array {
  const heads: Uint8Array[] = [];
  const tails: Uint8Array[] = [];
  let tailOffset = types.reduce((n, t) => n + headSize(t), 0);
  for (let i = 0; i < types.length; i++) {
    const t = types[i]!;
    const enc = encodeValue(t, values[i]!);
    if (isDynamic(t)) {
      heads.push(word(BigInt(tailOffset)));
      tails.push(enc);
      tailOffset += enc.length;
    } else heads.push(enc);
  }
  return concat([...heads, ...tails]);
}

/** `abi.encode(values…)` of a parameter list (no selector). */
export function encodeParams(types: readonly string[], values: readonly AbiValue[]): Uint8Array {
  return encodeSequence(types.map(parseAbiType), values as AbiValue[]);
}

/** `abi.encode(value)` of one value of `type` (a dynamic value starts with its offset, 0x20). */
export function encodeSingle(type: string, value: AbiValue): Uint8Array {
  return encodeSequence([parseAbiType(type)], [value]);
}

/** Calldata or custom-error data: selector ‖ `abi.encode(values…)`. */
export function encodeCall(selector: Uint8Array, types: readonly string[], values: readonly AbiValue[]): Uint8Array {
  return concat([selector, encodeParams(types, values)]);
}

// --- decoding ---

/** Reads a word as an unsigned integer. */
function readWord(data: Uint8Array, at: number): bigint {
  if (at + WORD > data.length || at < 0) throw new AbiOverrunError();
  let x = 0n;
  for (let i = at; i < at + WORD; i++) x = (x << 8n) | BigInt(data[i]!);
  return x;
}

/** An offset or length word, which must fit a JS index. */
function readSize(data: Uint8Array, at: number): number {
  const v = readWord(data, at);
  if (v > BigInt(data.length)) throw new AbiOverrunError();
  return Number(v);
}

/** Whether a decoded value is within its type (alloy's `valid_token`). */
function valid(t: AbiType, data: Uint8Array, at: number): boolean {
  switch (t.kind) {
    case "address":
      for (let i = 0; i < 12; i++) if (data[at + i] !== 0) return false;
      return true;
    case "bool": {
      for (let i = 0; i < 31; i++) if (data[at + i] !== 0) return false;
      return data[at + 31]! <= 1;
    }
    case "uint": {
      const pad = WORD - t.bits / 8;
      for (let i = 0; i < pad; i++) if (data[at + i] !== 0) return false;
      return t.enumCount === undefined || data[at + WORD - 1]! < t.enumCount;
    }
    case "int": {
      const pad = WORD - (t as { bits: number }).bits / 8;
      if (pad === 0) return true;
      const sign = data[at + pad]! & 0x80 ? 0xff : 0;
      for (let i = 0; i < pad; i++) if (data[at + i] !== sign) return false;
      return true;
    }
    case "fixedBytes":
      for (let i = t.size; i < WORD; i++) if (data[at + i] !== 0) return false;
      return true;
    default:
      return true;
  }
}

/** Strict UTF-8 (a `string` that is not UTF-8 fails alloy's type check). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Decoding state: whether a type check has already failed (alloy decodes fully, then checks). */
interface DecodeState {
  typeCheckFailed: boolean;
  /** Return leaf words as {@link RawWord}s instead of values. */
  raw: boolean;
}

function decodeValue(t: AbiType, data: Uint8Array, at: number, st: DecodeState): AbiValue {
  switch (t.kind) {
    case "address":
    case "bool":
    case "uint":
    case "int":
    case "fixedBytes": {
      const w = readWord(data, at);
      if (st.raw) return new RawWord(data.slice(at, at + WORD)) as unknown as AbiValue;
      if (!valid(t, data, at)) st.typeCheckFailed = true;
      if (t.kind === "address") return data.slice(at + 12, at + WORD);
      if (t.kind === "bool") return w !== 0n;
      if (t.kind === "fixedBytes") return data.slice(at, at + t.size);
      if (t.kind === "int") {
        const bits = BigInt(t.bits);
        const masked = w & ((1n << bits) - 1n);
        return masked >= 1n << (bits - 1n) ? masked - (1n << bits) : masked;
      }
      return w & ((1n << BigInt((t as { bits: number }).bits)) - 1n);
    }
    case "bytes":
    case "string": {
      const len = readSize(data, at);
      if (at + WORD + len > data.length) throw new AbiOverrunError();
      const b = data.slice(at + WORD, at + WORD + len);
      if (t.kind === "bytes") return b;
      if (st.raw) return b;
      try {
        return UTF8.decode(b);
      } catch {
        // alloy's `valid_token` for `string`: the bytes must be UTF-8.
        st.typeCheckFailed = true;
        return "";
      }
    }
    case "array": {
      let base = at;
      let n = t.length ?? 0;
      if (t.length === undefined) {
        n = readSize(data, at);
        base = at + WORD;
      }
      if (n * Math.min(headSize(t.of), WORD) > data.length) throw new AbiOverrunError();
      return decodeSequence(new Array<AbiType>(n).fill(t.of), data, base, st);
    }
    case "tuple":
      return decodeSequence(t.of, data, at, st);
  }
}

function decodeSequence(types: AbiType[], data: Uint8Array, base: number, st: DecodeState): AbiValue[] {
  const out: AbiValue[] = [];
  let head = base;
  for (const t of types) {
    if (isDynamic(t)) {
      const off = readSize(data, head);
      out.push(decodeValue(t, data, base + off, st));
    } else out.push(decodeValue(t, data, head, st));
    head += headSize(t);
  }
  return out;
}

/**
 * Decodes a parameter list (calldata after the selector), as alloy's `abi_decode` of a call:
 * throws {@link AbiOverrunError} when the data is too short and {@link AbiTypeCheckError} when a
 * value does not fit its type; the type-check message prints the parameters as a tuple and the
 * tuple's own encoding (which starts with an offset when the tuple is dynamic).
 */
export function decodeParams(types: readonly string[], data: Uint8Array): AbiValue[] {
  const parsedTypes = types.map(parseAbiType);
  const st: DecodeState = { typeCheckFailed: false, raw: false };
  const values = decodeSequence(parsedTypes, data, 0, st);
  if (st.typeCheckFailed) {
    const tuple: AbiType = { kind: "tuple", of: parsedTypes };
    const raw = decodeSequence(parsedTypes, data, 0, { typeCheckFailed: false, raw: true });
    throw new AbiTypeCheckError(abiTypeName(tuple), Buffer.from(encodeSequence([tuple], [raw])).toString("hex"));
  }
  return values;
}
