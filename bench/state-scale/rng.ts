/**
 * Seeded randomness of the scale benchmark: a small fast PRNG (sfc32, from PractRand; passes
 * its tests, 4 × 32-bit state) so that a run's state, blocks and request samples are the same
 * for the same seed, and keys generated already in ascending order, so that a state of tens of
 * millions of entries streams into the bulk loader without being sorted or held in memory.
 */
import { BasaltError } from "../../src/util/errors.js";

/** 2^32, for splitting numbers of up to 53 bits into words. */
const TWO_32 = 2 ** 32;
/** The high part of a hashed key that {@link ascendingKeys} makes increasing: 6 bytes (48 bits, exact in doubles). */
const PREFIX_BYTES = 6;
/** 2^48: the number of distinct {@link PREFIX_BYTES}-byte prefixes. */
const PREFIX_SPACE = 2 ** (8 * PREFIX_BYTES);
/** sfc32 rounds discarded after seeding (the generator's authors' recommendation: 12 or more). */
const WARMUP_ROUNDS = 15;

/** A deterministic pseudo-random source (sfc32). */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  /** A generator seeded with `seed` (any 32-bit integer) and `stream` (distinct streams for distinct uses of one seed). */
  constructor(seed: number, stream = 0) {
    this.a = seed >>> 0;
    this.b = (stream ^ 0x9e3779b9) >>> 0;
    this.c = 0x6a09e667;
    for (let i = 0; i < WARMUP_ROUNDS; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A uniform double in [0, 1) with 53 random bits. */
  float(): number {
    return ((this.u32() >>> 5) * 67108864 + (this.u32() >>> 6)) / 9007199254740992;
  }

  /** A uniform integer in [0, n) (n ≤ 2^53). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** Fills `out[from..)` with random bytes. */
  fill(out: Uint8Array, from = 0): Uint8Array {
    let i = from;
    for (; i + 4 <= out.length; i += 4) {
      const w = this.u32();
      out[i] = w >>> 24;
      out[i + 1] = (w >>> 16) & 0xff;
      out[i + 2] = (w >>> 8) & 0xff;
      out[i + 3] = w & 0xff;
    }
    if (i < out.length) {
      let w = this.u32();
      for (; i < out.length; i++, w >>>= 8) out[i] = w & 0xff;
    }
    return out;
  }

  /** `n` random bytes. */
  bytes(n: number): Uint8Array {
    return this.fill(new Uint8Array(n));
  }
}

/** More keys were asked of {@link ascendingKeys} than its prefix space holds. */
export class KeySpaceError extends BasaltError<{ count: number }> {
  constructor(count: number) {
    super("BENCH_STATE_SCALE_KEY_SPACE", `${count} ascending keys asked for: at most 2^${8 * PREFIX_BYTES} expected`, { count });
  }
}

/**
 * `count` random 32-byte keys in strictly ascending order: key i's top 6 bytes are
 * floor((i + u) · 2^48 / count) with u uniform in [0, 1) (one key per equal stratum of the
 * prefix space, so the gaps are random and average 2^48 / count; bumped by one in the
 * vanishingly rare case of a tie), the other 26 bytes uniform. Every value is exact in doubles.
 * The keys are uniform enough for the trie's shape (hashed keys are uniform too) and need no
 * sorting: a generator of tens of millions of them holds one key at a time.
 */
export function* ascendingKeys(rng: Rng, count: number): Generator<Uint8Array> {
  if (!Number.isInteger(count) || count < 0 || count > PREFIX_SPACE) throw new KeySpaceError(count);
  const stride = PREFIX_SPACE / count;
  let prev = -1;
  for (let i = 0; i < count; i++) {
    let v = Math.floor((i + rng.float()) * stride);
    if (v <= prev) v = prev + 1;
    // (i + 1) · stride ≤ 2^48 bounds v below 2^48 except after bumps, which only a count near 2^48 could pile up.
    if (v >= PREFIX_SPACE) throw new KeySpaceError(count);
    prev = v;
    const key = new Uint8Array(32);
    const hi = Math.floor(v / TWO_32);
    const lo = v - hi * TWO_32;
    key[0] = hi >>> 8;
    key[1] = hi & 0xff;
    key[2] = lo >>> 24;
    key[3] = (lo >>> 16) & 0xff;
    key[4] = (lo >>> 8) & 0xff;
    key[5] = lo & 0xff;
    rng.fill(key, PREFIX_BYTES);
    yield key;
  }
}

/** A random stripped storage value: 1 to 8 bytes, the first non-zero (as a slot value is stored). */
export function randomValue(rng: Rng): Uint8Array {
  const v = rng.bytes(1 + rng.int(8));
  if (v[0] === 0) v[0] = 1 + rng.int(255);
  return v;
}

/** Fisher–Yates shuffle of `items` in place. */
export function shuffle<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = items[i]!;
    items[i] = items[j]!;
    items[j] = t;
  }
  return items;
}
