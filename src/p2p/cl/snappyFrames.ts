/**
 * Snappy's framing format (google/snappy framing_format.txt), which op-node's payload_by_number
 * responses use (Go's `snappy.NewBufferedWriter` / `snappy.NewReader`, sync.go): a stream
 * identifier chunk, then chunks of at most 65,536 uncompressed bytes, each compressed (type 0x00)
 * or stored (0x01) with the masked CRC-32C of its uncompressed data. Block compression itself is
 * snappyjs. Decoding is bounded: a chunk's declared length and the total output are checked before
 * any work, so a peer cannot make it allocate past `maxOutput`.
 */
import { compress, uncompress } from "snappyjs";

const STREAM_IDENTIFIER = Uint8Array.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);
const CHUNK_COMPRESSED = 0x00;
const CHUNK_UNCOMPRESSED = 0x01;
const CHUNK_STREAM_ID = 0xff;
/** Largest uncompressed data in one chunk (framing format, section 4.2). */
const MAX_CHUNK_DATA = 65_536;

const CRC32C_TABLE = ((): Uint32Array => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** The parts one after the other, as a plain Uint8Array. */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

/** CRC-32C (Castagnoli) of `data`. */
export function crc32c(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC32C_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The checksum a chunk carries: the CRC rotated and offset (framing format, section 3). */
function maskedCrc(data: Uint8Array): number {
  const c = crc32c(data);
  return ((((c >>> 15) | (c << 17)) >>> 0) + 0xa282ead8) >>> 0;
}

/** Why a framed stream was refused. */
export class SnappyFrameError extends Error {
  constructor(readonly reason: "truncated" | "noStreamIdentifier" | "badChunk" | "checksum" | "tooLarge" | "reservedChunk") {
    super(`snappy framed data: ${reason}`);
    this.name = "SnappyFrameError";
  }
}

/** `data` in the framing format: the stream identifier then one chunk per 64 KiB (stored when compression does not help). */
export function encodeSnappyFrames(data: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [STREAM_IDENTIFIER];
  for (let off = 0; off < data.length || off === 0; off += MAX_CHUNK_DATA) {
    const chunk = data.subarray(off, Math.min(off + MAX_CHUNK_DATA, data.length));
    const packed = compress(chunk);
    const useCompressed = packed.length < chunk.length;
    const body = useCompressed ? packed : chunk;
    const header = new Uint8Array(8);
    const len = body.length + 4;
    header[0] = useCompressed ? CHUNK_COMPRESSED : CHUNK_UNCOMPRESSED;
    header[1] = len & 0xff;
    header[2] = (len >>> 8) & 0xff;
    header[3] = (len >>> 16) & 0xff;
    new DataView(header.buffer).setUint32(4, maskedCrc(chunk), true);
    parts.push(header, body);
    if (data.length === 0) break;
  }
  return concat(parts);
}

/**
 * Decodes a complete framed stream (as read to EOF) into its data, at most `maxOutput` bytes.
 * @throws SnappyFrameError when the stream is malformed, fails a checksum or decodes past the bound.
 */
export function decodeSnappyFrames(stream: Uint8Array, maxOutput: number): Uint8Array {
  const out: Uint8Array[] = [];
  let total = 0;
  let pos = 0;
  let sawIdentifier = false;
  while (pos < stream.length) {
    if (pos + 4 > stream.length) throw new SnappyFrameError("truncated");
    const type = stream[pos]!;
    const len = stream[pos + 1]! | (stream[pos + 2]! << 8) | (stream[pos + 3]! << 16);
    const start = pos + 4;
    const end = start + len;
    if (end > stream.length) throw new SnappyFrameError("truncated");
    const body = stream.subarray(start, end);
    pos = end;
    if (type === CHUNK_STREAM_ID) {
      if (len !== 6 || Buffer.compare(body, STREAM_IDENTIFIER.subarray(4)) !== 0) throw new SnappyFrameError("noStreamIdentifier");
      sawIdentifier = true;
      continue;
    }
    if (!sawIdentifier) throw new SnappyFrameError("noStreamIdentifier");
    if (type === CHUNK_COMPRESSED || type === CHUNK_UNCOMPRESSED) {
      if (len < 4) throw new SnappyFrameError("badChunk");
      const crc = new DataView(body.buffer, body.byteOffset, 4).getUint32(0, true);
      let data: Uint8Array;
      if (type === CHUNK_COMPRESSED) {
        try {
          data = uncompress(body.subarray(4), MAX_CHUNK_DATA);
        } catch {
          throw new SnappyFrameError("badChunk");
        }
      } else {
        data = body.subarray(4);
        if (data.length > MAX_CHUNK_DATA) throw new SnappyFrameError("badChunk");
      }
      if (maskedCrc(data) !== crc) throw new SnappyFrameError("checksum");
      total += data.length;
      if (total > maxOutput) throw new SnappyFrameError("tooLarge");
      out.push(data);
      continue;
    }
    // 0x02-0x7f are reserved unskippable chunks; 0x80-0xfd reserved skippable and 0xfe padding are skipped.
    if (type < 0x80) throw new SnappyFrameError("reservedChunk");
  }
  if (!sawIdentifier) throw new SnappyFrameError("noStreamIdentifier");
  return concat(out);
}
