// A host's crawl state in words: a short label for the coloured badge, and the server's sentence as detail.
import type { DomainState, RobotsInfo } from './api.ts';

const LABELS: Record<DomainState, string> = {
  crawling: 'crawling',
  waiting: 'waiting',
  backoff: 'backing off',
  'robots-blocked': 'blocked by robots.txt',
  'robots-unreachable': 'robots.txt unreachable',
  'robots-unusable': 'robots.txt unusable',
  failing: 'failing',
  idle: 'idle',
};

/** The short word(s) for a state, as the badge shows them ("crawling", "backing off", ...); unknown states as sent. */
export function stateLabel(state: DomainState): string {
  return LABELS[state] ?? String(state);
}

/**
 * The server's `stateText` without what the badge already says: "idle: nothing queued" → "nothing queued",
 * "backing off until 14:03:05 UTC (429)" → "until 14:03:05 UTC (429)". Null when nothing is left to add.
 * The sentence is kept whole when cutting the label would leave it starting mid-phrase (e.g. with "(").
 */
export function stateDetail(state: DomainState, stateText: string): string | null {
  const text = stateText.trim();
  const label = stateLabel(state);
  if (text === '' || text.toLowerCase() === label.toLowerCase()) return null;
  if (text.toLowerCase().startsWith(label.toLowerCase())) {
    const after = text.slice(label.length);
    const separator = /^(?::\s*|\s+)(?=[\p{L}\p{N}])/u.exec(after);
    if (separator !== null) return after.slice(separator[0].length);
  }
  return text;
}

const ROBOTS_TEXT: Record<RobotsInfo['status'], string> = {
  pending: 'pending',
  ok: 'ok',
  'allow-all': 'allow all',
  unreachable: 'unreachable',
  unusable: 'unusable',
};

/** A host's robots.txt as the Domains view says it: "ok (200)", "ok (304, unchanged)", "unreachable (503)". */
export function robotsText(robots: RobotsInfo): string {
  const status = ROBOTS_TEXT[robots.status] ?? robots.status;
  if (robots.httpStatus === 304) return `${status} (304, unchanged)`; // a conditional refresh kept the rules
  return robots.httpStatus !== null ? `${status} (${robots.httpStatus})` : status;
}
