/**
 * A token bucket per client: `capacity` requests at once, refilled at `perSecond`. Pure: the caller
 * passes the time. Keeps at most `maxClients` buckets (the oldest are forgotten first).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly capacity: number,
    private readonly perSecond: number,
    private readonly maxClients = 10_000,
  ) {}

  /**
   * The milliseconds until `client` has a token, without taking one (0: it has one now). For limits
   * that count only failures: check first, take only when the attempt failed.
   */
  wait(client: string, now: number): number {
    const b = this.buckets.get(client);
    if (b === undefined) return 0;
    const tokens = Math.min(this.capacity, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) / this.perSecond) * 1000);
  }

  /** Takes one token for `client`; returns 0 if allowed, else the milliseconds until one is available. */
  take(client: string, now: number): number {
    const b = this.buckets.get(client) ?? { tokens: this.capacity, at: now };
    b.tokens = Math.min(this.capacity, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    this.buckets.delete(client);
    this.buckets.set(client, b);
    if (this.buckets.size > this.maxClients) this.buckets.delete(this.buckets.keys().next().value!);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) / this.perSecond) * 1000);
  }
}
