/**
 * Politeness analysis of a test site's request log: how many requests overlapped and how close
 * together they came. Pure: it only reads the records it is given.
 */
import type { RequestRecord } from './test-web.ts';

/** One pair of requests that broke the politeness rule. */
export interface PolitenessViolation {
  /** The earlier request (the one, among all that started before `next`, that ended last). */
  prev: RequestRecord;
  /** The request that started too early. */
  next: RequestRecord;
  /** `next.start - prev.end`; negative when the two overlapped. */
  gapMs: number;
}

/** What `politenessReport` found. */
export interface PolitenessReport {
  /** Number of records examined. */
  requests: number;
  /** Largest number of requests that were in flight at the same moment (0 for an empty log). */
  maxInFlight: number;
  /** Smallest observed gap between the end of one request and the start of the next; Infinity with fewer than 2 requests. */
  minGapMs: number;
  /** Every overlap (gap < 0) and every gap below the required minimum, in order of `next.start`. */
  violations: PolitenessViolation[];
}

/** End time of a record; a record still in flight (end is NaN) counts as never ending. */
function endOf(r: RequestRecord): number {
  return Number.isNaN(r.end) ? Infinity : r.end;
}

/**
 * Checks a request log against the crawler's per-host politeness rule: at most one request in
 * flight, and each request starts at least `minGapMs` after the previous one ENDED.
 * The log is sorted by start; each request is compared with the earlier request that ended last
 * (not merely the one just before it), so a long request overlapped by two later ones is caught
 * twice. Records still in flight (end = NaN) are treated as ending at +Infinity.
 * Touching intervals (next.start === prev.end) are not an overlap.
 */
export function politenessReport(log: readonly RequestRecord[], minGapMs: number): PolitenessReport {
  const sorted = [...log].sort((a, b) => a.start - b.start);
  const violations: PolitenessViolation[] = [];
  let observedMin = Infinity;
  let latest: RequestRecord | undefined;
  for (const next of sorted) {
    if (latest !== undefined) {
      const gapMs = next.start - endOf(latest);
      if (gapMs < observedMin) observedMin = gapMs;
      if (gapMs < 0 || gapMs < minGapMs) violations.push({ prev: latest, next, gapMs });
    }
    if (latest === undefined || endOf(next) > endOf(latest)) latest = next;
  }
  return { requests: sorted.length, maxInFlight: maxConcurrent(sorted), minGapMs: observedMin, violations };
}

/** Sweep line over [start, end) intervals; an end at the same instant as a start is processed first. */
function maxConcurrent(records: readonly RequestRecord[]): number {
  const events: [time: number, delta: number][] = [];
  for (const r of records) {
    events.push([r.start, +1], [endOf(r), -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let current = 0;
  let max = 0;
  for (const [, delta] of events) {
    current += delta;
    if (current > max) max = current;
  }
  return max;
}
