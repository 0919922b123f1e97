import type { HostRow } from '../db/hosts.ts';
import type { DomainInfo, RequestLogEntry } from './protocol.ts';
import { BACKOFF } from './backoff.ts';

/** The live facts about a host that a report needs beyond its stored row. Pure input. */
export interface HostFacts {
  row: HostRow;
  queued: number;
  inFlight: number;
  dueAt: number;
  delayMs: number;
  delaySource: 'default' | 'crawl-delay';
  robotsSkipped: number;
}

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0 ? null : new Date(ms).toISOString();

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** One /api/domains row: the host's state in a word and in a sentence, with its counts and clock. Pure. */
export function describeHost(f: HostFacts, now: number): DomainInfo {
  const r = f.row;
  const backingOff = r.backoffUntil > now;
  let state: DomainInfo['state'];
  let stateText: string;
  if (f.inFlight > 0) {
    state = 'crawling';
    stateText = 'fetching now';
  } else if (r.robotsStatus === 'unreachable') {
    state = 'robots-unreachable';
    stateText = `robots.txt unreachable (${r.lastError ?? `HTTP ${r.robotsHttpStatus}`}); nothing fetched until it answers` +
      (backingOff ? `, retry at ${clock(r.backoffUntil)} UTC` : '');
  } else if (backingOff && f.queued > 0) {
    state = 'backoff';
    stateText = `backing off until ${clock(r.backoffUntil)} UTC (${r.backoffReason ?? 'errors'})`;
  } else if (f.queued === 0 && f.robotsSkipped > 0 && r.fetchedCount === 0) {
    state = 'robots-blocked';
    stateText = 'blocked by robots.txt: every URL found is disallowed';
  } else if (r.consecutiveErrors >= BACKOFF.errorsBeforeBackoff) {
    state = 'failing';
    stateText = `failing: ${r.lastError ?? 'repeated errors'}`;
  } else if (f.queued === 0) {
    state = 'idle';
    stateText = 'idle: nothing queued';
  } else {
    state = 'waiting';
    stateText = f.dueAt > now ? `waiting ${Math.ceil((f.dueAt - now) / 100) / 10} s for its turn` : 'due now';
  }
  const backoffSource = r.backoffReason?.includes('Retry-After') ? 'retry-after' : 'backoff';
  const delayFromBackoff = backingOff && r.backoffUntil - (r.lastRequestEnd ?? now) > f.delayMs;
  return {
    host: r.host,
    origin: r.origin,
    state,
    stateText,
    queued: f.queued,
    fetched: r.fetchedCount,
    errors: r.errorCount,
    inFlight: f.inFlight,
    lastFetchAt: iso(r.lastRequestEnd),
    nextFetchAt: f.queued > 0 || r.robotsStatus === 'pending' || r.robotsStatus === 'unreachable' ? iso(Math.max(f.dueAt, now)) : null,
    crawlDelayMs: Math.round(delayFromBackoff ? r.backoffUntil - (r.lastRequestEnd ?? now) : f.delayMs),
    delaySource: delayFromBackoff ? backoffSource : f.delaySource,
    backoffUntil: backingOff ? iso(r.backoffUntil) : null,
    lastError: r.lastError,
    robots: {
      status: r.robotsStatus,
      httpStatus: r.robotsHttpStatus,
      fetchedAt: iso(r.robotsFetchedAt),
      crawlDelayMs: r.crawlDelayMs,
    },
  };
}

/** A bounded log of a host's last requests, for its timeline. */
export class RequestRing {
  private readonly entries: RequestLogEntry[] = [];
  constructor(private readonly size = 100) {}
  /** Adds one finished request, dropping the oldest past the size. */
  push(e: RequestLogEntry): void {
    this.entries.push(e);
    if (this.entries.length > this.size) this.entries.shift();
  }
  /** Oldest first. */
  list(): RequestLogEntry[] {
    return [...this.entries];
  }
}
