/**
 * FastLZ level-1 compressed length, as the Fjord L1 cost function and the Jovian DA footprint
 * use it (specs/protocol/fjord/exec-engine.md "FastLZ compression").
 *
 * Only the length of the compressed output is computed, never the output itself. The algorithm
 * is the one of solady's `LibZip.flzCompress` as ported to Go by op-geth (`FlzCompressLen`) and
 * to Rust by op-revm / base (`base/base crates/alloy/flz/src/lib.rs` `flz_compress_len`): a
 * 13-bit hash table of 3-byte sequences, matches up to 8191 bytes back, literal runs of at most
 * 32 bytes. All arithmetic stays within u32 like the reference ports.
 */

/** Number of hash-table entries: FastLZ level 1 uses a 13-bit hash (solady `flzCompress`). */
const HASH_TABLE_SIZE = 8192;
/** Mask selecting the 13 hash bits. */
const HASH_MASK = 0x1fff;
/** Knuth's multiplicative hash constant (2^32 / golden ratio), as used by FastLZ / solady. */
const HASH_MULTIPLIER = 2654435769;
/** Right shift of the 32-bit product that keeps its top 13 bits (32 - 13 = 19). */
const HASH_SHIFT = 19;
/** Maximum match distance: a level-1 match offset is 13 bits (distance < 8192). */
const MAX_DISTANCE = 8192;
/** The compressor stops looking for matches 13 bytes before the end (solady: `ipLimit = len - 13`). */
const INPUT_MARGIN = 13;
/** Matches may extend up to 9 bytes past the search limit (solady: `cmp(..., ipLimit + 9)`). */
const MATCH_OVERRUN = 9;
/** A literal run holds at most 32 bytes, encoded as 1 control byte + the bytes (0x21 = 33). */
const LITERAL_RUN = 0x20;
/** Encoded size of a full 32-byte literal run. */
const LITERAL_RUN_SIZE = 0x21;
/** A long-match chunk covers 262 bytes of match length and costs 3 bytes (solady `_match`). */
const MATCH_CHUNK = 262;
/** Match lengths (minus one) from this value on need the 3-byte form; shorter ones 2 bytes. */
const SHORT_MATCH_LIMIT = 6;

function u24(data: Uint8Array, i: number): number {
  return data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16);
}

function hash24(v: number): number {
  // Bits 19..31 of v * 2654435769: only the low 32 bits of the product matter.
  return (Math.imul(v, HASH_MULTIPLIER | 0) >>> HASH_SHIFT) & HASH_MASK;
}

function literalsSize(run: number, size: number): number {
  let s = size + LITERAL_RUN_SIZE * Math.floor(run / LITERAL_RUN);
  const rest = run % LITERAL_RUN;
  if (rest !== 0) s += rest + 1;
  return s;
}

function matchSize(len: number, size: number): number {
  const l = len - 1;
  const s = size + 3 * Math.floor(l / MATCH_CHUNK);
  return l % MATCH_CHUNK >= SHORT_MATCH_LIMIT ? s + 3 : s + 2;
}

/** Length of the common run starting at p and q, bounded by `end - q`; counts the first mismatching byte too (solady `cmp`). */
function commonLength(data: Uint8Array, p: number, q: number, end: number): number {
  let l = 0;
  let bound = end - q;
  while (l < bound) {
    if (data[p + l] !== data[q + l]) bound = 0;
    l++;
  }
  return l;
}

/**
 * Length in bytes of the FastLZ (level 1) compression of `data`: the `fastlzSize` of the Fjord
 * L1-cost formula and of the Jovian DA-footprint estimate. Matches op-revm's `flz_compress_len`
 * and op-geth's `FlzCompressLen` exactly (e.g. 1000 zero bytes → 21, `0xFACADE` → 4).
 */
export function flzCompressLen(data: Uint8Array): number {
  const known = lengths.get(data);
  if (known !== undefined) return known;
  const len = compressLen(data);
  lengths.set(data, len);
  return len;
}

/**
 * Lengths already computed, by input array: the L1 cost and the DA footprint of one transaction
 * ask for the same envelope (the array is not copied in between).
 */
const lengths = new WeakMap<Uint8Array, number>();

/**
 * The hash table, reused across calls: an entry is valid only when its stamp is the current
 * call's (so no 32 KiB table is allocated and cleared per transaction).
 */
const positions = new Int32Array(HASH_TABLE_SIZE);
const stamps = new Int32Array(HASH_TABLE_SIZE);
let stamp = 0;

function compressLen(data: Uint8Array): number {
  const n = data.length;
  const limit = n < INPUT_MARGIN ? 0 : n - INPUT_MARGIN;
  if (stamp === 0x7fffffff) {
    stamps.fill(0);
    stamp = 0;
  }
  const call = ++stamp;
  let idx = 2;
  let anchor = 0;
  let size = 0;

  while (idx < limit) {
    let ref = 0;
    for (;;) {
      const seq = u24(data, idx);
      const h = hash24(seq);
      ref = stamps[h] === call ? positions[h]! : 0;
      positions[h] = idx;
      stamps[h] = call;
      const distance = idx - ref;
      if (idx >= limit) break;
      idx++;
      if (distance < MAX_DISTANCE && seq === u24(data, ref)) break;
    }
    if (idx >= limit) break;
    idx--;
    if (idx > anchor) size = literalsSize(idx - anchor, size);
    const len = commonLength(data, ref + 3, idx + 3, limit + MATCH_OVERRUN);
    size = matchSize(len, size);
    idx += len;
    let h = hash24(u24(data, idx));
    positions[h] = idx;
    stamps[h] = call;
    idx++;
    h = hash24(u24(data, idx));
    positions[h] = idx;
    stamps[h] = call;
    idx++;
    anchor = idx;
  }
  return literalsSize(n - anchor, size);
}
