// Pure layout of a host's request timeline: which time span the axis covers and where each mark goes.
import type { HostRequest } from './api.ts';

/**
 * Colour class of a request: by HTTP status class, or `error` when there is no status; `none` for a
 * robots.txt that is not there (a 4xx other than 429: the site has no rules, which is no error, and
 * the host's Errors count does not count it either).
 */
export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx' | 'error' | 'none';

/** One request placed on the axis; `x` and `width` are in viewBox units. */
export interface TimelineMark {
  request: HostRequest;
  start: number;
  x: number;
  width: number;
  statusClass: StatusClass;
}

/** The laid-out timeline. */
export interface TimelineLayout {
  from: number;
  to: number;
  marks: TimelineMark[];
}

/** The class a request's colour comes from. */
export function statusClass(request: HostRequest): StatusClass {
  const status = request.status;
  if (status === null) return 'error';
  if (status >= 500) return '5xx';
  if (status >= 400 && status !== 429 && /\/robots\.txt$/.test(request.url)) return 'none';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  if (status >= 200) return '2xx';
  return 'error';
}

/**
 * Places requests on an axis `width` units wide: the span runs from the first start to the last end
 * (at least `minSpanMs`), each mark's width is its duration, never thinner than `minWidth` units.
 */
export function layoutTimeline(requests: HostRequest[], width: number, minWidth = 3, minSpanMs = 5000): TimelineLayout {
  const timed = requests
    .map((request) => ({ request, start: Date.parse(request.startedAt) }))
    .filter((item) => !Number.isNaN(item.start));
  if (timed.length === 0) return { from: 0, to: 0, marks: [] };
  const from = Math.min(...timed.map((item) => item.start));
  const lastEnd = Math.max(...timed.map((item) => item.start + Math.max(0, item.request.durationMs)));
  const to = Math.max(lastEnd, from + minSpanMs);
  const scale = width / (to - from);
  const marks = timed.map(({ request, start }) => {
    const markWidth = Math.max(minWidth, Math.max(0, request.durationMs) * scale);
    const x = Math.min((start - from) * scale, width - markWidth);
    return { request, start, x, width: markWidth, statusClass: statusClass(request) };
  });
  return { from, to, marks };
}
