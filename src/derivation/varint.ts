/**
 * Unsigned varints of span batches: protobuf / Go `encoding/binary` uvarints (7 bits a byte, least
 * significant group first, high bit = more). Decoding follows Go's `binary.ReadUvarint`, which
 * op-node uses: at most 10 bytes, the 10th at most 1 (a u64), and non-minimal encodings (a
 * trailing 0x80 group) accepted. Encoding is minimal, as Go's `binary.PutUvarint`.
 */
import { invalidEncodeInput } from "./codecErrors.js";
import type { RlpFail } from "./rlp.js";

/** Most bytes of a u64 uvarint (Go `binary.MaxVarintLen64`). */
const MAX_VARINT_LEN64 = 10;
/** Largest u64. */
const U64_MAX = (1n << 64n) - 1n;
/** Largest integer a double holds exactly. */
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A decoded value and the offset just past it. */
interface Uvarint {
  value: bigint;
  next: number;
}

/**
 * Reads the uvarint at `pos` (before `end`); `fail` builds the error for a truncated or
 * overflowing one.
 */
export function readUvarint(buf: Uint8Array, pos: number, end: number, fail: RlpFail): Uvarint {
  // Up to 7 groups (49 bits) fit a double exactly; beyond that switch to bigint.
  let n = 0;
  let mul = 1;
  for (let i = 0; i < MAX_VARINT_LEN64; i++) {
    if (pos + i >= end) throw fail(i === 0 ? "input ends where a varint was expected" : "varint is truncated");
    const b = buf[pos + i]!;
    if (i === MAX_VARINT_LEN64 - 1 && b > 1) throw fail("varint overflows a 64-bit integer");
    if (i < 7) {
      n += (b & 0x7f) * mul;
      mul *= 128;
      if (b < 0x80) return { value: BigInt(n), next: pos + i + 1 };
    } else {
      return readUvarintBig(buf, pos, end, fail, BigInt(n));
    }
  }
  throw fail("varint overflows a 64-bit integer");
}

/** The tail of {@link readUvarint} past 7 groups, in bigint. */
function readUvarintBig(buf: Uint8Array, pos: number, end: number, fail: RlpFail, low: bigint): Uvarint {
  let v = low;
  for (let i = 7; i < MAX_VARINT_LEN64; i++) {
    if (pos + i >= end) throw fail("varint is truncated");
    const b = buf[pos + i]!;
    if (i === MAX_VARINT_LEN64 - 1 && b > 1) throw fail("varint overflows a 64-bit integer");
    v |= BigInt(b & 0x7f) << BigInt(7 * i);
    if (b < 0x80) return { value: v, next: pos + i + 1 };
  }
  throw fail("varint overflows a 64-bit integer");
}

/** The minimal uvarint encoding of a u64 (an INVALID_ENCODE_INPUT error outside 0..2^64-1). */
export function encodeUvarint(value: bigint | number): Uint8Array {
  if (typeof value === "number" || value <= MAX_SAFE) return encodeSmall(Number(value));
  let v = value;
  if (v > U64_MAX) throw invalidEncodeInput(`uvarint value ${v} is not a u64`);
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

/** {@link encodeUvarint} of a safe integer, in doubles. */
function encodeSmall(value: number): Uint8Array {
  if (!Number.isSafeInteger(value) || value < 0) throw invalidEncodeInput(`uvarint value ${value} is not a u64`);
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Uint8Array.from(out);
}
