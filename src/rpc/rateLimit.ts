/**
 * Per-client token buckets for public-endpoint mode (`--public`): each client key (the socket's
 * remote IP) gets `rate` tokens per second up to `burst`; a request costs one token per JSON-RPC
 * call it carries. The clock is injectable so tests drive refill deterministically.
 */
import { TypedError } from "../util/errors.js";
import { RATE_LIMIT_MAX_CLIENTS, RATE_LIMIT_SWEEP_INTERVAL_MS } from "./constants.js";

/** Milliseconds on a monotonic clock. */
export type Clock = () => number;

/** Options of a {@link TokenBucketLimiter}. */
interface TokenBucketOptions {
  /** Tokens added per second (sustained requests per second); > 0. */
  rate: number;
  /** Bucket size (requests a client may send at once); ≥ 1. */
  burst: number;
  /** Most buckets held (default {@link RATE_LIMIT_MAX_CLIENTS}); the least recently used is evicted beyond it. */
  maxClients?: number;
  /** Clock in milliseconds (default `performance.now`). */
  now?: Clock;
}

/** Outcome of {@link TokenBucketLimiter.take}. */
type TakeResult = { allowed: true } | { allowed: false; /** Whole seconds (≥ 1) until the request would be allowed. */ retryAfterS: number };

/** Stable code of {@link RateLimitConfigError}. */
const RateLimitConfigErrorCode = { LIMIT_CONFIG: "RATE_LIMIT_CONFIG" } as const;
/** A {@link RateLimitConfigError}'s code with its metadata. */
type RateLimitConfigErrorType = { code: typeof RateLimitConfigErrorCode.LIMIT_CONFIG; rate: number; burst: number };

/** The limiter's settings are unusable. */
export class RateLimitConfigError extends TypedError<RateLimitConfigErrorType> {
  constructor(message: string, rate: number, burst: number) {
    super({ code: RateLimitConfigErrorCode.LIMIT_CONFIG, rate, burst }, message);
  }
}

/** One client's bucket: tokens (may be negative after a large batch) as of `at`. */
interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets keyed by client. A request costing more than the bucket holds is refused; one
 * costing more than `burst` (a large batch) is admitted when the bucket is full and leaves it in
 * debt, so the client's average rate still never exceeds `rate`.
 */
export class TokenBucketLimiter {
  readonly rate: number;
  readonly burst: number;
  private readonly maxClients: number;
  private readonly now: Clock;
  /** Map insertion order is recency: a touched bucket is moved to the end. */
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep: number;

  /** Validates the settings; throws {@link RateLimitConfigError} for a rate ≤ 0 or a burst < 1. */
  constructor(opts: TokenBucketOptions) {
    if (!(opts.rate > 0) || !Number.isFinite(opts.rate)) {
      throw new RateLimitConfigError(`rate limit: rate must be a positive number of requests per second, got ${opts.rate}`, opts.rate, opts.burst);
    }
    if (!(opts.burst >= 1) || !Number.isFinite(opts.burst)) {
      throw new RateLimitConfigError(`rate limit: burst must be at least 1 request, got ${opts.burst}`, opts.rate, opts.burst);
    }
    this.rate = opts.rate;
    this.burst = opts.burst;
    this.maxClients = opts.maxClients ?? RATE_LIMIT_MAX_CLIENTS;
    this.now = opts.now ?? (() => performance.now());
    this.lastSweep = this.now();
  }

  /**
   * Spends `cost` tokens of `key`'s bucket if it holds enough (at least `min(cost, burst)`);
   * otherwise spends nothing and says how long to wait.
   */
  take(key: string, cost = 1): TakeResult {
    const now = this.now();
    if (now - this.lastSweep >= RATE_LIMIT_SWEEP_INTERVAL_MS) this.sweep(now);
    const bucket = this.refilled(key, now);
    const needed = Math.min(Math.max(cost, 1), this.burst);
    if (bucket.tokens >= needed) {
      bucket.tokens -= Math.max(cost, 1);
      return { allowed: true };
    }
    return { allowed: false, retryAfterS: Math.max(1, Math.ceil((needed - bucket.tokens) / this.rate)) };
  }

  /** Tokens `key` holds now (burst for an unknown client); for tests and diagnostics. */
  tokens(key: string): number {
    const b = this.buckets.get(key);
    if (b === undefined) return this.burst;
    return Math.min(this.burst, b.tokens + ((this.now() - b.at) / 1000) * this.rate);
  }

  /** Buckets held. */
  get size(): number {
    return this.buckets.size;
  }

  /** Drops every bucket that has refilled to `burst` (indistinguishable from a new one). */
  sweep(now = this.now()): void {
    this.lastSweep = now;
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.rate >= this.burst) this.buckets.delete(key);
    }
  }

  /** The bucket of `key`, refilled to `now` and moved to the most recent end (created full, evicting the oldest beyond the bound). */
  private refilled(key: string, now: number): Bucket {
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = { tokens: this.burst, at: now };
      if (this.buckets.size >= this.maxClients) {
        const oldest = this.buckets.keys().next();
        if (oldest.done !== true) this.buckets.delete(oldest.value);
      }
    } else {
      this.buckets.delete(key);
      b.tokens = Math.min(this.burst, b.tokens + (Math.max(0, now - b.at) / 1000) * this.rate);
      b.at = now;
    }
    this.buckets.set(key, b);
    return b;
  }
}
