/**
 * Binary key layouts of the LMDB sub-databases. Every key is big-endian so that LMDB's
 * lexicographic order equals numeric order (range scans over block numbers work).
 */

/** 8-byte big-endian block number. */
export function numberKey(n: bigint | number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}

/** Reads an 8-byte big-endian number at `offset`. */
export function readNumber(b: Uint8Array, offset = 0): bigint {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).readBigUInt64BE(offset);
}

/** Bytes of a hashed key: keccak256 of an address or of a storage slot. */
export const HASHED_KEY_BYTES = 32;

/** hashedAddress(32) ++ block(8): account history entry. */
export function accountHistoryKey(hashedAddress: Uint8Array, block: bigint): Buffer {
  const b = Buffer.allocUnsafe(HASHED_KEY_BYTES + 8);
  b.set(hashedAddress, 0);
  b.writeBigUInt64BE(block, HASHED_KEY_BYTES);
  return b;
}

/** hashedAddress(32) ++ hashedSlot(32): flat storage entry. */
export function storageKey(hashedAddress: Uint8Array, hashedSlot: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(2 * HASHED_KEY_BYTES);
  b.set(hashedAddress, 0);
  b.set(hashedSlot, HASHED_KEY_BYTES);
  return b;
}

/** hashedAddress(32) ++ hashedSlot(32) ++ block(8): storage history entry. */
export function storageHistoryKey(hashedAddress: Uint8Array, hashedSlot: Uint8Array, block: bigint): Buffer {
  const b = Buffer.allocUnsafe(2 * HASHED_KEY_BYTES + 8);
  b.set(hashedAddress, 0);
  b.set(hashedSlot, HASHED_KEY_BYTES);
  b.writeBigUInt64BE(block, 2 * HASHED_KEY_BYTES);
  return b;
}

/** block(8) ++ rest: change-set entry, enumerates what a block changed (for unwinding). */
export function changeSetKey(block: bigint, rest: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(8 + rest.length);
  b.writeBigUInt64BE(block, 0);
  b.set(rest, 8);
  return b;
}

/** The smallest key greater than every key starting with `prefix` (for range ends). */
export function prefixEnd(prefix: Uint8Array): Buffer {
  const b = Buffer.from(prefix);
  for (let i = b.length - 1; i >= 0; i--) {
    if (b[i] !== 0xff) {
      b[i]++;
      return b.subarray(0, i + 1);
    }
  }
  return Buffer.concat([b, Buffer.from([0xff])]);
}
