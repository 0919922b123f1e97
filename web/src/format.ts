// Formatting of numbers, times and durations for people. Pure functions; the current time is passed in.

const numberFormat = new Intl.NumberFormat('en');

/** Formats a count with thousands separators ("12,345"). */
export function formatCount(n: number): string {
  return numberFormat.format(n);
}

/** "1 result" / "3 results": a count with its noun in singular or plural. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/**
 * The Seeds list's count: "3 seeds", or "12,000 seeds, the newest 500 shown (a label finds the others)"
 * when the list holds one page of them (GET /api/seeds answers 500 at most).
 */
export function seedCountText(shown: number, total: number, filtered: boolean): string {
  const count = plural(total, 'seed');
  if (shown >= total) return count;
  return `${count}, the newest ${formatCount(shown)} shown${filtered ? '' : ' (a label finds the others)'}`;
}

/** Formats a delay in milliseconds as seconds with one decimal ("1.0 s"), or ms below 100 ms. */
export function formatDelay(ms: number): string {
  if (ms < 100) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Time a search took, in whole milliseconds ("4 ms", "<1 ms"); the API may send fractions. */
export function formatTook(ms: number): string {
  if (ms < 0.5) return '<1 ms';
  return `${formatCount(Math.round(ms))} ms`;
}

/** Formats a request duration ("84 ms", "1.2 s"). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

function spanText(seconds: number, round: (n: number) => number = Math.floor): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = round(seconds / 3600);
  if (hours < 48) return `${hours} h`;
  return `${round(seconds / 86_400)} d`;
}

/** How long ago an instant was, relative to `now` ("just now", "12 s ago", "3 min ago"). */
export function formatAgo(iso: string | null, now: number): string {
  if (iso === null) return '—';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '—';
  const seconds = Math.floor((now - then) / 1000);
  if (seconds < 1) return 'just now';
  return `${spanText(seconds)} ago`;
}

/**
 * An age in milliseconds as a span ("12 s", "3 min", "2 h"), or "a moment" under a second: for times the server
 * sends as ages (the crawler nodes' heartbeats, a lease's hold), which need no clock of the browser's.
 */
export function formatSpan(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 1 ? 'a moment' : spanText(seconds);
}

/** A live countdown to an instant ("in 4 s", "in 7 d", "due now"), rounded up: it is never sooner than it says. */
export function formatCountdown(iso: string | null, now: number): string {
  if (iso === null) return '—';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '—';
  const seconds = Math.ceil((then - now) / 1000);
  if (seconds <= 0) return 'due now';
  return `in ${spanText(seconds, Math.ceil)}`;
}

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const timeFormat = new Intl.DateTimeFormat('en', {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hour12: false,
});

/** A calendar date ("Dec 2, 2025"), or "—" when missing or invalid. */
export function formatDate(iso: string | null): string {
  if (iso === null || Number.isNaN(Date.parse(iso))) return '—';
  return dateFormat.format(new Date(iso));
}

/** A date with time of day, for tooltips. */
export function formatDateTime(iso: string | null): string {
  if (iso === null || Number.isNaN(Date.parse(iso))) return '—';
  return dateTimeFormat.format(new Date(iso));
}

/** A 24-hour wall-clock time with seconds ("14:03:05"). */
export function formatClock(ms: number): string {
  return timeFormat.format(new Date(ms));
}

/** A URL shortened for display: no scheme, no trailing slash on a bare host. */
export function displayUrl(url: string): string {
  return url.replace(/^https?:\/\//i, '').replace(/^([^/]+)\/$/, '$1');
}

/**
 * A URL as a result shows it: its site (host[:port], no scheme or www.) and its path (with query),
 * without a trailing slash; the path is '' for the site's front page.
 */
export function urlParts(url: string): { site: string; path: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { site: url, path: '' };
  }
  const site = u.host.replace(/^www\./, '');
  let path = decodeSafely(u.pathname)
    .replace(/^\/+|\/+$/g, '')
    .replace(/\//g, ' › ');
  if (u.search !== '') path += `${path === '' ? '' : ' '}${u.search}`;
  return { site, path };
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A countdown precise enough for the crawler's delays: tenths of a second under 10 s ("in 0.2 s"), else as formatCountdown. */
export function formatCountdownPrecise(iso: string | null, now: number): string {
  if (iso === null) return '—';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '—';
  const ms = then - now;
  if (ms <= 0) return 'due now';
  if (ms < 10_000) return `in ${(Math.ceil(ms / 100) / 10).toFixed(1)} s`;
  return formatCountdown(iso, now);
}

/** A wall-clock time of day for "done at 14:05" (24-hour, local time). */
export function formatTimeOfDay(iso: string): string {
  return shortTimeFormat.format(new Date(iso));
}

const shortTimeFormat = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', hour12: false });
