/**
 * Pages an expression matches, counted up to a cap and remembered for a while. Pure (the counting
 * and the clock are injected). A count below its cap is exact; one at the cap says "at least the
 * cap". CandidateLists asks it whether one word of a query run in OR mode alone reaches COUNT_CAP
 * matches (then the query does too, and its capped count is known without reading its matches), and
 * how many anchor-text matches each word has (which words the anchor ranking may score).
 */

/** Counts pages matching an FTS5 expression, no further than `cap` (FtsSearch.count). */
export type CountPages = (expression: string, cap: number) => number;

/** A bounded cache of capped counts (see the file comment). */
export class CappedCounts {
  readonly #count: CountPages;
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #cache = new Map<string, { n: number; cap: number; at: number }>();

  /**
   * `ttlMs`: how long a count is reused (pages come and go; a count this old decides as well);
   * `max`: counts kept before the cache starts over; `now`: a clock in ms (tests inject one).
   */
  constructor(count: CountPages, opts: { ttlMs: number; max: number; now?: () => number }) {
    this.#count = count;
    this.#ttlMs = opts.ttlMs;
    this.#max = opts.max;
    this.#now = opts.now ?? (() => performance.now());
  }

  /** True when `expression` matches at least `n` pages (counted up to `n`, or known from a count kept). */
  atLeast(expression: string, n: number): boolean {
    return this.upTo(expression, n) >= n;
  }

  /** The pages `expression` matches, counted no further than `cap` (or known from a count kept). */
  upTo(expression: string, cap: number): number {
    const now = this.#now();
    const hit = this.#cache.get(expression);
    if (hit !== undefined && now - hit.at < this.#ttlMs) {
      if (hit.n >= cap) return cap;
      // Below its cap the count is exact; at its cap (a smaller one) it says too little: count again.
      if (hit.n < hit.cap) return hit.n;
    }
    if (this.#cache.size >= this.#max) this.#cache.clear();
    const counted = this.#count(expression, cap);
    this.#cache.set(expression, { n: counted, cap, at: now });
    return counted;
  }
}
