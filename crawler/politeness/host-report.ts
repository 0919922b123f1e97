import type { DomainInfo, GroupInfo, RequestLogEntry } from '../common/protocol.ts';
import { BACKOFF } from './backoff.ts';
import type { HostFacts, HostReportRow } from '../common/host-facts.ts';

export type { HostFacts, HostReportRow } from '../common/host-facts.ts';

/**
 * A copy of the report's part of `row`, so that later changes to the row do not change what was sent.
 * Spelled out field by field, as sameReportRow is: named fields keep the objects of one shape, and
 * reading and serializing them is several times faster than by a list of keys (10,000 hosts a snapshot).
 */
export function reportRow(row: Readonly<HostReportRow>): HostReportRow {
  return {
    origin: row.origin,
    host: row.host,
    robotsStatus: row.robotsStatus,
    robotsHttpStatus: row.robotsHttpStatus,
    robotsFetchedAt: row.robotsFetchedAt,
    crawlDelayMs: row.crawlDelayMs,
    backoffUntil: row.backoffUntil,
    backoffReason: row.backoffReason,
    consecutiveErrors: row.consecutiveErrors,
    lastRequestStart: row.lastRequestStart,
    lastRequestEnd: row.lastRequestEnd,
    fetchedCount: row.fetchedCount,
    errorCount: row.errorCount,
    lastError: row.lastError,
  };
}

/** Whether a host's row and a report row copied from it (reportRow) still say the same; no allocation. */
export function sameReportRow(row: Readonly<HostReportRow>, sent: Readonly<HostReportRow>): boolean {
  // The fields that change with every request first.
  return (
    row.lastRequestStart === sent.lastRequestStart &&
    row.lastRequestEnd === sent.lastRequestEnd &&
    row.fetchedCount === sent.fetchedCount &&
    row.errorCount === sent.errorCount &&
    row.consecutiveErrors === sent.consecutiveErrors &&
    row.backoffUntil === sent.backoffUntil &&
    row.backoffReason === sent.backoffReason &&
    row.lastError === sent.lastError &&
    row.robotsStatus === sent.robotsStatus &&
    row.robotsHttpStatus === sent.robotsHttpStatus &&
    row.robotsFetchedAt === sent.robotsFetchedAt &&
    row.crawlDelayMs === sent.crawlDelayMs &&
    row.origin === sent.origin &&
    row.host === sent.host
  );
}

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined || !Number.isFinite(ms) || ms <= 0 ? null : new Date(ms).toISOString();

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** A request in flight this long is called slow in the host's sentence. */
export const SLOW_FETCH_MS = 5_000;

/** Fetch failure codes (FetchError.code, as stored as a backoff reason) in words. */
const CODE_WORDS: Record<string, string> = {
  timeout: 'timeouts',
  'connection-refused': 'connection refused',
  'connection-reset': 'connection reset',
  dns: 'host name does not resolve',
  unreachable: 'host unreachable',
  tls: 'TLS handshake failed',
  network: 'network errors',
  'bad-response': 'malformed responses',
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * One /api/domains row: the host's state in a word and in a sentence, with its counts and clock. Pure.
 * Whenever something went wrong the sentence carries the last error itself, so a person reading the
 * row learns what the site did (no headers in time, refused the connection, a body over the cap, ...).
 */
export function describeHost(f: HostFacts, now: number): DomainInfo {
  const r = f.row;
  const backingOff = r.backoffUntil > now;
  const last = r.lastError ?? 'repeated errors';
  let state: DomainInfo['state'];
  let stateText: string;
  if (f.inFlight > 0) {
    state = 'crawling';
    const forMs = r.lastRequestStart === null ? 0 : now - r.lastRequestStart;
    stateText =
      forMs >= SLOW_FETCH_MS
        ? `fetching now, for ${Math.floor(forMs / 1000)} s: the site is slow to answer`
        : 'fetching now';
  } else if (r.robotsStatus === 'unreachable') {
    state = 'robots-unreachable';
    stateText =
      `robots.txt unreachable (${r.lastError ?? `HTTP ${r.robotsHttpStatus}`}); nothing fetched until it answers` +
      (backingOff ? `, retry at ${clock(r.backoffUntil)} UTC` : '');
  } else if (r.robotsStatus === 'unusable') {
    state = 'robots-unusable';
    stateText =
      `robots.txt unusable (${r.lastError ?? 'its rules cost too much to check'}); nothing fetched until a later robots.txt gives usable rules` +
      (backingOff ? `, asked again at ${clock(r.backoffUntil)} UTC` : '');
  } else if (backingOff && f.queued > 0) {
    state = 'backoff';
    const reason = r.backoffReason ?? 'errors';
    stateText =
      CODE_WORDS[reason] !== undefined && r.lastError
        ? `backing off until ${clock(r.backoffUntil)} UTC after ${plural(r.consecutiveErrors, 'failure')} in a row (${CODE_WORDS[reason]}): ${r.lastError}`
        : `backing off until ${clock(r.backoffUntil)} UTC (${reason})`;
  } else if (f.queued === 0 && f.robotsSkipped > 0 && r.fetchedCount === 0) {
    state = 'robots-blocked';
    stateText = 'blocked by robots.txt: every URL found is disallowed';
  } else if (r.consecutiveErrors >= BACKOFF.errorsBeforeBackoff) {
    state = 'failing';
    stateText = `failing: ${plural(r.consecutiveErrors, 'failure')} in a row, the last: ${last}`;
  } else if (f.queued === 0 && r.fetchedCount === 0 && r.errorCount > 0) {
    state = 'failing';
    stateText = `failing: nothing could be fetched (${plural(r.errorCount, 'error')}), the last: ${last}`;
  } else if (f.queued === 0) {
    state = 'idle';
    // A note without an error (links not followed: a trap, a seed's host limit) stays in view once the host is idle.
    stateText =
      r.errorCount > 0 && r.lastError
        ? `idle: nothing queued; ${plural(r.errorCount, 'error')}, the last: ${r.lastError}`
        : r.lastError
          ? `idle: nothing queued; ${r.lastError}`
          : 'idle: nothing queued';
  } else {
    state = 'waiting';
    if (r.consecutiveErrors > 0 && r.lastError) stateText = `waiting to retry after an error: ${r.lastError}`;
    else stateText = f.dueAt > now ? `waiting ${Math.ceil((f.dueAt - now) / 100) / 10} s for its turn` : 'due now';
  }
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
    nextFetchAt:
      f.queued > 0 || r.robotsStatus === 'pending' || r.robotsStatus === 'unreachable' || r.robotsStatus === 'unusable'
        ? iso(Math.max(f.dueAt, now))
        : null,
    crawlDelayMs: Math.round(f.delay.ms),
    delaySource: f.delay.source,
    delayText: f.delay.text,
    group: { name: f.group, hosts: 1, inFlight: f.inFlight, lastFetchAt: iso(r.lastRequestEnd), nextFetchAt: null },
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

/**
 * Fills in each row's group clock from the rows of the group's hosts: how many hosts, the request in
 * flight, the last request's end, and when the next may start (the earliest of its hosts' next fetches).
 * Pure; the rows are changed in place and returned.
 */
export function describeGroups(rows: DomainInfo[]): DomainInfo[] {
  const groups = new Map<string, GroupInfo>();
  const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);
  const earlier = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a < b ? a : b);
  for (const row of rows) {
    const g = groups.get(row.group.name);
    if (!g) {
      groups.set(row.group.name, { ...row.group, nextFetchAt: row.nextFetchAt });
      continue;
    }
    g.hosts++;
    g.inFlight += row.inFlight;
    g.lastFetchAt = later(g.lastFetchAt, row.lastFetchAt);
    g.nextFetchAt = earlier(g.nextFetchAt, row.nextFetchAt);
  }
  for (const row of rows) row.group = groups.get(row.group.name)!;
  return rows;
}

/**
 * Every host's /api/domains row at `now`, with its group's clock, sorted by host: what the server shows
 * (server/domain-book.ts) from the facts the primary sent. Pure.
 */
export function describeHosts(facts: Iterable<HostFacts>, now: number): DomainInfo[] {
  const rows: DomainInfo[] = [];
  for (const f of facts) rows.push(describeHost(f, now));
  return describeGroups(rows).sort((a, b) => a.host.localeCompare(b.host));
}

/** A finished request as the primary records it: times in ms (RequestRing turns them into a RequestLogEntry when asked). */
export interface FinishedRequest {
  url: string;
  status: number | null;
  startedAt: number;
  durationMs: number;
  error: string | null;
}

/**
 * A bounded log of a host's last requests, for its timeline. Kept as columns (a ring over plain arrays of
 * numbers and strings, the time as a number) rather than an entry object and a date string per request:
 * at 10,000 hosts x 100 requests that is a million entries, about 60 bytes each fewer, and pushing onto a
 * full ring overwrites the oldest instead of shifting the rest.
 */
export class RequestRing {
  private readonly urls: string[] = [];
  private readonly statuses: number[] = []; // -1: no status (the request failed before an answer)
  private readonly starts: number[] = [];
  private readonly durations: number[] = [];
  private readonly errors: Array<string | null> = [];
  /** Where the next entry goes once the ring is full (the oldest entry). */
  private head = 0;
  constructor(private readonly size = 100) {}
  /** Adds one finished request, dropping the oldest past the size. */
  push(e: FinishedRequest): void {
    const i = this.urls.length < this.size ? this.urls.length : this.head;
    this.urls[i] = e.url;
    this.statuses[i] = e.status ?? -1;
    this.starts[i] = e.startedAt;
    this.durations[i] = e.durationMs;
    this.errors[i] = e.error;
    if (i === this.head && this.urls.length === this.size) this.head = (this.head + 1) % this.size;
  }
  /** Oldest first. */
  list(): RequestLogEntry[] {
    const n = this.urls.length;
    const out: RequestLogEntry[] = [];
    for (let k = 0; k < n; k++) {
      const i = (this.head + k) % n;
      out.push({
        url: this.urls[i],
        status: this.statuses[i] === -1 ? null : this.statuses[i],
        startedAt: new Date(this.starts[i]).toISOString(),
        durationMs: this.durations[i],
        error: this.errors[i],
      });
    }
    return out;
  }
}
