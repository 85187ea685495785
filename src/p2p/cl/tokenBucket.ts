/**
 * A token bucket with reservations, as Go's `rate.Limiter` that op-node's req/resp server uses
 * (sync.go): `reserve()` takes a token now, possibly going into debt, and says how long the caller
 * must wait before using it; a caller that will not wait that long gives the token back.
 */

/** See the module comment. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
  }

  /** Takes one token; returns the milliseconds to wait before it may be used (0: at once). */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.perSecond) * 1000);
  }

  /** Returns a token taken by {@link reserve} that will not be used. */
  cancel(): void {
    this.tokens = Math.min(this.burst, this.tokens + 1);
  }
}
