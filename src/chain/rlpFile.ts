/**
 * Concatenated RLP block files (the `chain.rlp` of geth/reth `import` and `export`).
 */
import { RLP } from "@ethereumjs/rlp";
import { TypedError } from "../util/errors.js";

/** Stable code of {@link RlpFileError}. */
const RlpFileErrorCode = { FILE_INVALID: "RLP_FILE_INVALID" } as const;
/** A {@link RlpFileError}'s code with its metadata. */
type RlpFileErrorType = { code: typeof RlpFileErrorCode.FILE_INVALID; index: number; offset: number };

/** A block file that cannot be decoded at some item. */
export class RlpFileError extends TypedError<RlpFileErrorType> {
  constructor(index: number, offset: number, reason: string) {
    super({ code: RlpFileErrorCode.FILE_INVALID, index, offset }, `RLP item ${index + 1} of the file (byte offset ${offset}): ${reason}`);
  }
}

/** Length in bytes of the RLP item starting at `offset`, or throws when truncated. */
function itemLength(buf: Uint8Array, offset: number, index: number): number {
  const b = buf[offset];
  let len: number;
  if (b < 0x80) len = 1;
  else if (b < 0xb8) len = 1 + (b - 0x80);
  else if (b < 0xc0) {
    const ll = b - 0xb7;
    len = 1 + ll + readLen(buf, offset + 1, ll, index, offset);
  } else if (b < 0xf8) len = 1 + (b - 0xc0);
  else {
    const ll = b - 0xf7;
    len = 1 + ll + readLen(buf, offset + 1, ll, index, offset);
  }
  if (offset + len > buf.length) throw new RlpFileError(index, offset, `truncated: item needs ${len} bytes, ${buf.length - offset} left`);
  return len;
}

function readLen(buf: Uint8Array, at: number, ll: number, index: number, offset: number): number {
  if (at + ll > buf.length) throw new RlpFileError(index, offset, "truncated length prefix");
  let n = 0;
  for (let i = 0; i < ll; i++) n = n * 256 + buf[at + i];
  return n;
}

/** Yields each block's raw RLP bytes (not decoded) from a concatenated file. */
export function* splitRlpItems(buf: Uint8Array): Generator<{ index: number; offset: number; bytes: Uint8Array }> {
  let offset = 0;
  let index = 0;
  while (offset < buf.length) {
    const len = itemLength(buf, offset, index);
    const bytes = buf.subarray(offset, offset + len);
    if (buf[offset] < 0xc0) throw new RlpFileError(index, offset, "item is not an RLP list (not a block)");
    // Validate the item decodes as RLP (throws on malformed inner structure).
    try {
      RLP.decode(bytes);
    } catch (e) {
      throw new RlpFileError(index, offset, `malformed RLP: ${(e as Error).message}`);
    }
    yield { index, offset, bytes };
    offset += len;
    index++;
  }
}

/**
 * The items of the RLP list `buf` (one list, its header first) as spans: each item's whole
 * encoding (`bytes`) and where its payload starts in it. No decoding: for hashing items as stored.
 * @throws RlpFileError when `buf` is not a list or an item runs past it.
 */
export function rlpListItems(buf: Uint8Array): { bytes: Uint8Array; payloadOffset: number; isList: boolean }[] {
  const head = buf[0];
  if (head === undefined || head < 0xc0) throw new RlpFileError(0, 0, "not an RLP list");
  const start = head < 0xf8 ? 1 : 1 + (head - 0xf7);
  const end = itemLength(buf, 0, 0);
  const out: { bytes: Uint8Array; payloadOffset: number; isList: boolean }[] = [];
  for (let offset = start, index = 0; offset < end; index++) {
    const len = itemLength(buf, offset, index);
    if (offset + len > end) throw new RlpFileError(index, offset, "item runs past its list");
    const b = buf[offset]!;
    const payloadOffset = b < 0x80 ? 0 : b < 0xb8 ? 1 : b < 0xc0 ? 1 + (b - 0xb7) : b < 0xf8 ? 1 : 1 + (b - 0xf7);
    out.push({ bytes: buf.subarray(offset, offset + len), payloadOffset, isList: b >= 0xc0 });
    offset += len;
  }
  return out;
}
