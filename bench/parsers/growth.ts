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

/**
 * Runs per size so that every size takes about the same CPU time when the parser is linear: enough
 * runs of the base size to fill `targetMs` (from one run's `oneRunMs`), divided by the multiple.
 */
export function runsPerSize(oneRunMs: number, targetMs: number): number[] {
  const base = Math.max(1, Math.ceil(targetMs / Math.max(oneRunMs, 1e-6)));
  return MULTIPLES.map((m) => Math.max(1, Math.round(base / m)));
}

/** The ratio of each measured time to the one before it (the growth per step); NaN where one is missing. */
export function growthRatios(msPerRun: readonly (number | undefined)[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < msPerRun.length; i++) {
    const a = msPerRun[i - 1];
    const b = msPerRun[i];
    out.push(a === undefined || b === undefined || a <= 0 ? Number.NaN : b / a);
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
