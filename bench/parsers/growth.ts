/**
 * The arithmetic of the parser growth benchmark: how many times to run each size, the growth ratio
 * per 8x step of input, and the verdict (linear is about 8x; above GROWTH_LIMIT is failing). Pure.
 */

/** Each step multiplies the input by this much. */
export const STEP_FACTOR = 8;
/** Sizes measured, as multiples of the base size. */
export const MULTIPLES = [1, STEP_FACTOR, STEP_FACTOR * STEP_FACTOR] as const;
/** Growth per step above which a parser-shape is failing (linear is about STEP_FACTOR). */
export const GROWTH_LIMIT = 12;
/** CPU ms one run of the base size should cost at least, so that fixed costs and timer noise do not set the ratios. */
export const MIN_BASE_MS = 0.5;
/**
 * Smallest base size (characters) of an uncapped parser: V8 keeps strings and arrays over 128 KB in its
 * large-object space, each allocated fresh (page faults, zeroed pages): about 1.8x the cost per
 * character of the same linear code on smaller inputs (text document, "spaces, then a letter": 3.2 ns
 * per character at 64 Ki, 5.7 at 256 Ki, 5.2 at 4 Mi). Starting past that step keeps all three sizes
 * on one side of it, so the ratios show the code's growth, not the heap's. 192 Ki, not 128 Ki: a shape's
 * repeated unit rounds its text down, and 131,000 one-byte characters still sat below the 128 KiB step
 * (text document, "control characters": 28x at the first step from 131,000 characters, 6.2x from 196,600).
 */
export const MIN_BASE_CHARS = 192 * 1024;
/**
 * Largest base size (characters) the doubling goes to: MIN_BASE_CHARS, so 64x is 12 Mi characters. A
 * larger one showed the caches' limit, not the code's: "bookmark HTML: tags never closed" reads 16 Mi
 * characters at memchr speed, 0.44 ms, 14.2x its 2 Mi.
 */
export const MAX_BASE_CHARS = MIN_BASE_CHARS;
/** Room left under a cap for what a shape adds around its repeated unit. */
const CAP_MARGIN = 1.01;

/**
 * The base size of a parser-shape: `start`, raised to `minChars`, then doubled until one run of it costs at least
 * `minMs` (`msAt` measures one run of a size), or until the next doubling would pass `maxChars`;
 * with a `cap` (the most characters the product lets the parser read) the base is the largest whose
 * 64x fits under it (with a 1% margin), whatever a run costs, and is not grown. Returns the base and
 * the ms seen at it.
 */
export function chooseBase(
  start: number,
  msAt: (size: number) => number,
  options: { cap?: number; minMs?: number; minChars?: number; maxChars?: number } = {},
): { base: number; ms: number } {
  const { cap, minMs = MIN_BASE_MS, minChars = MIN_BASE_CHARS, maxChars = MAX_BASE_CHARS } = options;
  const largest = MULTIPLES[MULTIPLES.length - 1];
  if (cap !== undefined) {
    const base = Math.max(1, Math.floor(cap / largest / CAP_MARGIN));
    return { base, ms: msAt(base) };
  }
  let base = Math.max(start, Math.min(minChars, maxChars));
  let ms = msAt(base);
  while (ms < minMs && base * 2 <= maxChars) {
    base *= 2;
    ms = msAt(base);
  }
  return { base, ms };
}

/** Runs of a size that fill about `targetMs` of CPU, given one run's `oneRunMs` (at least one). */
export function runsToFill(oneRunMs: number, targetMs: number): number {
  return Math.max(1, Math.ceil(targetMs / Math.max(oneRunMs, 1e-6)));
}

/**
 * The growth of each measured time over the one before it, per STEP_FACTOR of input: the time ratio
 * scaled by STEP_FACTOR over the size ratio, for a shape whose unit made its sizes not exactly 8x
 * apart (a query of one "site:a. " at 1x, 15 at 8x); NaN where a time is missing.
 */
export function growthRatios(
  msPerRun: readonly (number | undefined)[],
  sizes?: readonly (number | undefined)[],
): number[] {
  const out: number[] = [];
  for (let i = 1; i < msPerRun.length; i++) {
    const a = msPerRun[i - 1];
    const b = msPerRun[i];
    const sa = sizes?.[i - 1];
    const sb = sizes?.[i];
    const scale = sa !== undefined && sb !== undefined && sa > 0 && sb > 0 ? STEP_FACTOR / (sb / sa) : 1;
    out.push(a === undefined || b === undefined || a <= 0 ? Number.NaN : (b / a) * scale);
  }
  return out;
}

/** A parser-shape's verdict: failing when any step grew more than `limit` times, or a size was not measured. */
export function growthVerdict(ratios: readonly number[], limit = GROWTH_LIMIT): 'ok' | 'FAILING' {
  return ratios.every((r) => Number.isFinite(r) && r <= limit) ? 'ok' : 'FAILING';
}

/**
 * Whether measuring the next size would take longer than `capMs` at the growth seen so far (so the
 * benchmark reports the shape as failing without spending minutes proving it).
 */
export function tooSlowToMeasure(lastMs: number, lastRatio: number | undefined, capMs: number): boolean {
  if (lastRatio === undefined || !Number.isFinite(lastRatio)) return false;
  return lastMs * Math.max(lastRatio, STEP_FACTOR) > capMs;
}

/** The largest step of a measurement (Infinity when a size was not measured): what a re-measurement is judged by. */
export function worstGrowth(ratios: readonly number[]): number {
  return ratios.reduce((worst, r) => (Number.isFinite(r) ? Math.max(worst, r) : Number.POSITIVE_INFINITY), 0);
}
