/**
 * Pacing by the server's own speed. Pure: a group's recent answers go in, a delay comes out.
 *
 * The delay after a request is at least `factor` times the server's recent response time (Heritrix
 * waits 5 times its last fetch), so a server that takes 2 s to answer waits 10 s for the next request
 * while a fast one is held only by the configured delay. Three choices, and why:
 *  - "Recent response time" rises at once and falls slowly: a slower answer replaces the smoothed
 *    value, a faster one pulls it a third of the way down (PACING.easing). The last fetch alone (as in
 *    Heritrix) makes the delay jump with each page's size; a plain moving mean reacts late to a server
 *    that has just become slow. Rising at once is the polite error; after about six fast answers a
 *    single slow one has faded to a tenth.
 *  - The factor's part is capped at PACING.ceilingMs (60 s): a server answering at the fetch timeout
 *    (30 s by default) is then asked at most about once in 90 s, busy with us at most a third of the
 *    time; slower than that, the timeouts themselves back it off (backoff.ts, up to an hour). The cap
 *    never shortens a robots.txt Crawl-delay or a backoff, which are separate rules.
 *  - A server that starts to strain is slowed before it is backed off: each strained answer (5xx, 429
 *    or a timeout) doubles the factor for its group, up to 8 times, and a good answer (any other HTTP
 *    status) restores it. The first such error slows the group at once, while the backoff waits for an
 *    error streak of BACKOFF.errorsBeforeBackoff (a 429 / 503 backs off at once anyway).
 * With factor 0 (the default until the wiring adds a setting) pacing adds nothing.
 */
import type { FetchResult } from '../common/protocol.ts';

/** Defaults in one place. */
export const PACING = {
  /** Delay at least factor × recent response time; 0 turns pacing off. */
  factor: 0,
  /** The factor's part never exceeds this (ms). */
  ceilingMs: 60_000,
  /** How far one faster answer pulls the smoothed response time toward itself. */
  easing: 1 / 3,
  /** Strained answers double the factor at most up to this multiple. */
  maxSlowdown: 8,
} as const;

/** The pacing settings a scheduler runs with. */
export interface PacingSettings {
  factor: number;
  ceilingMs: number;
}

/** A group's recent answers, as pacing needs them. */
export interface Pace {
  /** The smoothed response time (ms), undefined before the first answer. */
  readonly responseMs: number | undefined;
  /** The factor's multiple: 1, doubled by each strained answer up to PACING.maxSlowdown. */
  readonly slowdown: number;
  /** Strained answers since the last good one. */
  readonly strained: number;
}

/** A group that has not answered yet. */
export const NO_PACE: Pace = { responseMs: undefined, slowdown: 1, strained: 0 };

/** What an answer says about the server's load: fine, straining (5xx, 429, timeout), or nothing (no answer). */
export type ServerLoad = 'ok' | 'strained' | 'unknown';

/** One request's evidence for pacing: how long the server took (when it answered or timed out) and its load. */
export interface ServerSignal {
  responseMs: number | undefined;
  load: ServerLoad;
}

/** The pacing settings are out of range. */
export class PacingSettingsError extends Error {
  override readonly name = 'PacingSettingsError';
}

/** Checks pacing settings: a factor and a ceiling that are finite and not negative. */
export function checkPacing(s: PacingSettings): PacingSettings {
  if (!Number.isFinite(s.factor) || s.factor < 0)
    throw new PacingSettingsError(
      `pacing: factor ${s.factor} must be a finite number ≥ 0 (0 turns pacing off, 5 waits five times the response time)`,
    );
  if (!Number.isFinite(s.ceilingMs) || s.ceilingMs < 0)
    throw new PacingSettingsError(`pacing: ceilingMs ${s.ceilingMs} must be a finite number of milliseconds ≥ 0`);
  return s;
}

/**
 * Reads a worker's result for pacing: an HTTP answer gives its duration, strained for 5xx and 429;
 * a timeout gives the time waited, strained; any other failure (refused, DNS, TLS) says nothing.
 */
export function serverSignal(r: Pick<FetchResult, 'status' | 'startedAt' | 'endedAt' | 'error'>): ServerSignal {
  const d = r.endedAt - r.startedAt;
  const responseMs = Number.isFinite(d) && d >= 0 ? d : undefined;
  if (r.error?.code === 'timeout') return { responseMs, load: 'strained' };
  if (r.status === null) return { responseMs: undefined, load: 'unknown' };
  return { responseMs, load: r.status === 429 || r.status >= 500 ? 'strained' : 'ok' };
}

/** A group's pace after one more answer (see the module comment for the rules). */
export function nextPace(p: Pace, s: ServerSignal): Pace {
  let responseMs = p.responseMs;
  if (s.responseMs !== undefined) {
    responseMs =
      responseMs === undefined || s.responseMs >= responseMs
        ? s.responseMs
        : responseMs + PACING.easing * (s.responseMs - responseMs);
  }
  if (s.load === 'strained')
    return { responseMs, slowdown: Math.min(PACING.maxSlowdown, p.slowdown * 2), strained: p.strained + 1 };
  if (s.load === 'ok') return { responseMs, slowdown: 1, strained: 0 };
  return { responseMs, slowdown: p.slowdown, strained: p.strained };
}

/** The factor's part of the delay (ms): factor × slowdown × response time, capped; 0 when off or unknown. */
export function pacingMs(p: Pace, s: PacingSettings): number {
  if (s.factor <= 0 || p.responseMs === undefined) return 0;
  return Math.min(s.ceilingMs, s.factor * p.slowdown * p.responseMs);
}

/** Milliseconds as seconds with one decimal, for people: `2.0 s`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The factor's part in words, e.g. `5 x 0.4 s response time` or `5 x 2 (slowed after 1 server error) x 0.4 s response time, capped at 60.0 s`. */
export function describePacing(p: Pace, s: PacingSettings): string {
  if (s.factor <= 0 || p.responseMs === undefined) return 'no pacing';
  const parts = [String(s.factor)];
  if (p.slowdown > 1)
    parts.push(`${p.slowdown} (slowed after ${p.strained} server error${p.strained === 1 ? '' : 's'} in a row)`);
  parts.push(`${seconds(p.responseMs)} response time`);
  const capped = s.factor * p.slowdown * p.responseMs > s.ceilingMs ? `, capped at ${seconds(s.ceilingMs)}` : '';
  return parts.join(' x ') + capped;
}
