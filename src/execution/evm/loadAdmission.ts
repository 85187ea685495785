/**
 * Admission of loaded state into a call context's cache (the "doorkeeper" of TinyLFU): an
 * account or slot a call read is kept for the next calls only when it was read before, recently.
 *
 * Why: a call context lives as long as the head (2 s on Base, indefinitely on a devnet without
 * blocks), and RPC traffic reads a few hot entries (the token contract, its total supply, busy
 * senders) and a long tail of entries read once (each transfer's recipient and its balance slot).
 * Keeping the tail made every call's loads survive the young-generation GC and be promoted —
 * 1.1 MB per scavenge and 4–8 ms pauses on a stream of plain-transfer estimates to distinct
 * recipients, against 0.5 ms when nothing is promoted — and grew the worker's heap without bound
 * while the head stood still.
 *
 * The table is fixed-size and allocation-free: a key hashes to a slot holding a 32-bit fingerprint
 * of the last key seen there. A first sighting stores the fingerprint and is not admitted; a
 * second sighting (before another key overwrote the slot) is. Collisions only cost a cache miss
 * or an extra entry, never a wrong value: the cache holds values read from the same state.
 */

/** FNV-1a offset basis and prime (32-bit). */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Multiplier deriving the fingerprint from the hash (golden-ratio constant, odd). */
const FINGERPRINT_MIX = 0x9e3779b1;

/** FNV-1a over a string's UTF-16 code units (keys here are short: 10 to 26 units). */
function hashKey(key: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/** The doorkeeper of one thread's call contexts (see the module comment). */
export class LoadAdmission {
  private readonly table: Uint32Array;
  private readonly mask: number;

  /** @param slots table size, a power of two. */
  constructor(slots: number) {
    if (!Number.isInteger(slots) || slots < 2 || (slots & (slots - 1)) !== 0) {
      throw new RangeError(`admission table size ${slots} is invalid: expected a power of two ≥ 2`);
    }
    this.table = new Uint32Array(slots);
    this.mask = slots - 1;
  }

  /**
   * Records a sighting of `key` (with `salt`, e.g. the account's key for one of its slots) and
   * returns true when it was seen before and is to be kept.
   */
  admit(key: string, salt = ""): boolean {
    const h = salt.length === 0 ? hashKey(key, FNV_OFFSET) : hashKey(key, hashKey(salt, FNV_OFFSET));
    const i = h & this.mask;
    // Never zero, so an empty table slot never matches.
    const fp = (Math.imul(h, FINGERPRINT_MIX) | 1) >>> 0;
    if (this.table[i] === fp) return true;
    this.table[i] = fp;
    return false;
  }
}
