/**
 * Walking msgpack bytes without decoding them: where a value ends, and the length of an array.
 * The store's receipts of a block are one msgpack array; eth_getTransactionReceipt needs one of
 * them plus, of the ones before it, only their log counts and the previous cumulative gas — so it
 * skips the others instead of decoding (and allocating) every receipt of the block.
 * Format: https://github.com/msgpack/msgpack/blob/master/spec.md.
 */
import { StorageError, StorageErrorCode } from "./errors.js";

function truncated(pos: number, length: number): StorageError {
  return new StorageError({ code: StorageErrorCode.RECORD_CORRUPT, pos, length }, `msgpack value truncated at byte ${pos} of ${length}: the stored record is shorter than its headers say`);
}

function uint(b: Uint8Array, pos: number, bytes: 1 | 2 | 4): number {
  if (pos + bytes > b.length) throw truncated(pos, b.length);
  if (bytes === 1) return b[pos]!;
  if (bytes === 2) return (b[pos]! << 8) | b[pos + 1]!;
  return ((b[pos]! << 24) >>> 0) + ((b[pos + 1]! << 16) | (b[pos + 2]! << 8) | b[pos + 3]!);
}

/** The header of an array at `pos`: its element count and where its first element starts; undefined when the value there is not an array. */
export function arrayHeader(b: Uint8Array, pos: number): { count: number; start: number } | undefined {
  if (pos >= b.length) throw truncated(pos, b.length);
  const t = b[pos]!;
  if (t >= 0x90 && t <= 0x9f) return { count: t & 0x0f, start: pos + 1 };
  if (t === 0xdc) return { count: uint(b, pos + 1, 2), start: pos + 3 };
  if (t === 0xdd) return { count: uint(b, pos + 1, 4), start: pos + 5 };
  return undefined;
}

/** Where the msgpack value starting at `pos` ends (the position of the next value). */
export function skipValue(b: Uint8Array, pos: number): number {
  // Values still to skip: containers push their element count instead of recursing.
  let pending = 1;
  while (pending > 0) {
    if (pos >= b.length) throw truncated(pos, b.length);
    const t = b[pos]!;
    pending--;
    if (t <= 0x7f || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) pos += 1;
    else if (t >= 0x80 && t <= 0x8f) (pending += 2 * (t & 0x0f)), (pos += 1);
    else if (t >= 0x90 && t <= 0x9f) (pending += t & 0x0f), (pos += 1);
    else if (t >= 0xa0 && t <= 0xbf) pos += 1 + (t & 0x1f);
    else {
      switch (t) {
        case 0xc4: case 0xd9: pos += 2 + uint(b, pos + 1, 1); break; // bin8, str8
        case 0xc5: case 0xda: pos += 3 + uint(b, pos + 1, 2); break; // bin16, str16
        case 0xc6: case 0xdb: pos += 5 + uint(b, pos + 1, 4); break; // bin32, str32
        case 0xc7: pos += 3 + uint(b, pos + 1, 1); break; // ext8: length, type, data
        case 0xc8: pos += 4 + uint(b, pos + 1, 2); break; // ext16
        case 0xc9: pos += 6 + uint(b, pos + 1, 4); break; // ext32
        case 0xcc: case 0xd0: pos += 2; break; // uint8, int8
        case 0xcd: case 0xd1: pos += 3; break; // uint16, int16
        case 0xca: case 0xce: case 0xd2: pos += 5; break; // float32, uint32, int32
        case 0xcb: case 0xcf: case 0xd3: pos += 9; break; // float64, uint64, int64
        case 0xd4: pos += 3; break; // fixext1
        case 0xd5: pos += 4; break; // fixext2
        case 0xd6: pos += 6; break; // fixext4
        case 0xd7: pos += 10; break; // fixext8
        case 0xd8: pos += 18; break; // fixext16
        case 0xdc: pending += uint(b, pos + 1, 2); pos += 3; break; // array16
        case 0xdd: pending += uint(b, pos + 1, 4); pos += 5; break; // array32
        case 0xde: pending += 2 * uint(b, pos + 1, 2); pos += 3; break; // map16
        case 0xdf: pending += 2 * uint(b, pos + 1, 4); pos += 5; break; // map32
        default:
          throw new StorageError({ code: StorageErrorCode.RECORD_CORRUPT, pos, length: b.length }, `msgpack type byte 0x${t.toString(16)} at ${pos} is not defined by the format: the stored record is corrupt`);
      }
    }
  }
  if (pos > b.length) throw truncated(pos, b.length);
  return pos;
}
