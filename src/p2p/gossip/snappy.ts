/**
 * Snappy *block* format (no framing: github.com/google/snappy format_description.txt), as gossip
 * messages use it (specs rollup-node-p2p.md "Message compression and limits").
 *
 * Decoding is strict like Go's `golang/snappy` `Decode` that op-node runs: the uvarint length
 * header must fit 32 bits, every literal and copy must stay inside the input and the announced
 * output, copy offsets must point into bytes already written, and the output must come out
 * exactly as long as announced. (snappyjs's own decoder accepts short output and ignores writes
 * past the end, so it only serves for compression.) The length header is read first and checked
 * against the caller's limit before anything is allocated.
 */
import { createRequire } from "node:module";
import { badSnappy } from "./errors.js";

/** snappyjs 0.7 (CommonJS, no type declarations): only its compressor is used. */
const snappyjs = createRequire(import.meta.url)("snappyjs") as { compress(data: Uint8Array): Uint8Array };

/** Largest length a snappy header may announce (Go `decodedLen`: `v > 0xffffffff` is corrupt). */
const MAX_HEADER_LENGTH = 0xffff_ffff;
/** Bytes of a uvarint that can still carry value bits (Go `binary.MaxVarintLen64`). */
const MAX_VARINT_BYTES = 10;

/** Element tags (low two bits of a tag byte). */
const TAG_LITERAL = 0;
const TAG_COPY1 = 1;
const TAG_COPY2 = 2;

/** The announced decompressed length and the header's size, or undefined when the header is corrupt. */
export function snappyDecodedLength(src: Uint8Array): { length: number; headerBytes: number } | undefined {
  let v = 0;
  let scale = 1;
  for (let i = 0; i < MAX_VARINT_BYTES && i < src.length; i++) {
    const b = src[i]!;
    v += (b & 0x7f) * scale;
    if (v > MAX_HEADER_LENGTH) return undefined;
    if (b < 0x80) return { length: v, headerBytes: i + 1 };
    scale *= 128;
  }
  return undefined;
}

/**
 * Decompresses a snappy block whose announced length is at most `maxLength`; throws
 * {@link GossipCodecError} (`P2P_GOSSIP_BAD_SNAPPY`) for corrupt data or a longer announced length
 * (checked before allocating).
 */
export function snappyUncompress(src: Uint8Array, maxLength: number): Uint8Array {
  const header = snappyDecodedLength(src);
  if (header === undefined) throw badSnappy("the length header is not a uvarint below 2^32");
  if (header.length > maxLength) throw badSnappy(`the header announces ${header.length} bytes, more than the limit of ${maxLength}`);
  const dst = new Uint8Array(header.length);
  let s = header.headerBytes;
  let d = 0;
  while (s < src.length) {
    const tag = src[s]!;
    let length: number;
    if ((tag & 3) === TAG_LITERAL) {
      let x = tag >>> 2;
      if (x < 60) s += 1;
      else {
        const extra = x - 59; // 1..4 little-endian length bytes follow the tag
        if (s + 1 + extra > src.length) throw badSnappy(`literal length bytes run past the input at offset ${s}`);
        x = 0;
        for (let k = extra; k >= 1; k--) x = x * 256 + src[s + k]!;
        s += 1 + extra;
      }
      length = x + 1;
      if (length > dst.length - d || length > src.length - s) throw badSnappy(`literal of ${length} bytes at offset ${s} overruns the input or the announced length`);
      dst.set(src.subarray(s, s + length), d);
      d += length;
      s += length;
      continue;
    }
    let offset: number;
    if ((tag & 3) === TAG_COPY1) {
      if (s + 2 > src.length) throw badSnappy(`copy element truncated at offset ${s}`);
      length = 4 + ((tag >>> 2) & 7);
      offset = ((tag & 0xe0) << 3) | src[s + 1]!;
      s += 2;
    } else if ((tag & 3) === TAG_COPY2) {
      if (s + 3 > src.length) throw badSnappy(`copy element truncated at offset ${s}`);
      length = 1 + (tag >>> 2);
      offset = src[s + 1]! | (src[s + 2]! << 8);
      s += 3;
    } else {
      if (s + 5 > src.length) throw badSnappy(`copy element truncated at offset ${s}`);
      length = 1 + (tag >>> 2);
      offset = src[s + 1]! + src[s + 2]! * 0x100 + src[s + 3]! * 0x10000 + src[s + 4]! * 0x1000000;
      s += 5;
    }
    if (offset <= 0 || offset > d || length > dst.length - d) throw badSnappy(`copy of ${length} bytes from ${offset} back at output ${d} is out of range`);
    for (let end = d + length; d < end; d++) dst[d] = dst[d - offset]!;
  }
  if (d !== dst.length) throw badSnappy(`the data decodes to ${d} bytes, the header announces ${dst.length}`);
  return dst;
}

/** Compresses `data` as one snappy block. */
export function snappyCompress(data: Uint8Array): Uint8Array {
  return snappyjs.compress(data);
}
