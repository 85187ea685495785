/**
 * Logs blooms (Yellow Paper §4.3.1, a receipt's and the header's `logsBloom`): each log's address
 * and topics set three bits, each chosen by the low 11 bits of one of the first three byte pairs of
 * keccak256(item). Built from a receipt's logs when read (the store keeps no bloom per receipt, as
 * reth: 256 bytes a transaction), and tested for membership: a block whose bloom lacks any of an
 * address's bits holds no log of that address, so derivation skips its receipts.
 */
import { keccak256 } from "./keccak.js";

/** Bytes of a logs bloom (2048 bits). */
const BLOOM_BYTES = 256;

function setBits(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    bloom[255 - (bit >> 3)]! |= 1 << (bit & 7);
  }
}

/** The logs bloom of a receipt's logs. */
export function logsBloom(logs: readonly { address: Uint8Array; topics: readonly Uint8Array[] }[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES);
  for (const l of logs) {
    setBits(bloom, l.address);
    for (const t of l.topics) setBits(bloom, t);
  }
  return bloom;
}

/** Whether `bloom` (256 bytes) may contain `item` (an address or topic); false only when it certainly does not. */
export function bloomMayContain(bloom: Uint8Array, item: Uint8Array): boolean {
  if (bloom.length !== 256) return true;
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    if ((bloom[255 - (bit >> 3)]! & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}
