/**
 * Logs-bloom membership (Yellow Paper §4.3.1, the header's `logsBloom`): three bits, each chosen by
 * the low 11 bits of one of the first three byte pairs of keccak256(item). A block whose bloom lacks
 * any of an address's bits holds no log of that address, so derivation skips its receipts.
 */
import { keccak256 } from "../util/keccak.js";

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
