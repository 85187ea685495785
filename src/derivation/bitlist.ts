/**
 * Span batch bitlists (specs delta/span-batches.md; op-node `decodeSpanBatchBits`, kona
 * `SpanBatchBits`): a bitlist of `length` bits is a big-endian integer left-padded with zero bits to
 * `ceil(length / 8)` bytes, so bit i is bit (i mod 8) of byte `bytes.length - 1 - floor(i / 8)` —
 * the least significant bit of the last byte is bit 0. A bit set at or beyond `length` is an error.
 */
import { DerivationCodecError, DerivationCodecErrorCode } from "./codecErrors.js";
import type { RlpFail } from "./rlp.js";

/** Bytes of a bitlist of `length` bits. */
function bitlistByteLength(length: number): number {
  return Math.ceil(length / 8);
}

/** A fixed-length list of bits in the span batch layout. */
export class Bitlist {
  /** Number of bits. */
  readonly length: number;
  /** The encoding: `ceil(length / 8)` bytes, big-endian. */
  readonly bytes: Uint8Array;

  /** A bitlist of `length` bits, all clear, or over `bytes` (which must be its encoding). */
  constructor(length: number, bytes?: Uint8Array) {
    this.length = length;
    this.bytes = bytes ?? new Uint8Array(bitlistByteLength(length));
  }

  /** Bit `i` (false beyond the length). */
  get(i: number): boolean {
    if (i < 0 || i >= this.length) return false;
    return ((this.bytes[this.bytes.length - 1 - (i >>> 3)]! >>> (i & 7)) & 1) === 1;
  }

  /** Sets bit `i` (a RangeError beyond the length: a caller bug). */
  set(i: number, value: boolean): void {
    if (i < 0 || i >= this.length) throw new RangeError(`bit ${i} is outside a bitlist of ${this.length} bits`);
    const at = this.bytes.length - 1 - (i >>> 3);
    const mask = 1 << (i & 7);
    this.bytes[at] = value ? this.bytes[at]! | mask : this.bytes[at]! & ~mask;
  }

  /** How many bits are set. */
  popcount(): number {
    let n = 0;
    for (let b of this.bytes) {
      for (; b !== 0; b &= b - 1) n++;
    }
    return n;
  }

  /** A bitlist from booleans (bit i = `bits[i]`). */
  static from(bits: readonly boolean[]): Bitlist {
    const out = new Bitlist(bits.length);
    bits.forEach((b, i) => b && out.set(i, true));
    return out;
  }
}

/**
 * Reads a bitlist of `length` bits at `pos` (before `end`): `fail` builds the error for input
 * that ends early; a set bit at or beyond `length` is a BITLIST_TOO_LONG error naming `field`.
 * The bitlist is a view into `buf`.
 */
export function readBitlist(buf: Uint8Array, pos: number, end: number, length: number, field: string, fail: RlpFail): { bits: Bitlist; next: number } {
  const n = bitlistByteLength(length);
  if (n > end - pos) throw fail(`needs ${n} bytes, ${end - pos} remain`);
  const bytes = buf.subarray(pos, pos + n);
  const spare = n * 8 - length;
  if (spare > 0 && bytes[0]! >>> (8 - spare) !== 0) {
    let top = 7;
    while (((bytes[0]! >>> top) & 1) === 0) top--;
    const highestSetBit = (n - 1) * 8 + top;
    throw new DerivationCodecError(
      { code: DerivationCodecErrorCode.BITLIST_TOO_LONG, field, bitLength: length, highestSetBit },
      `span batch ${field} has bit ${highestSetBit} set, but the bitlist holds ${length} bits (0 to ${length - 1})`,
    );
  }
  return { bits: new Bitlist(length, bytes), next: pos + n };
}
