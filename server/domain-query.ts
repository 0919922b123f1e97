/**
 * `GET /api/domains` as pages: the hosts the crawler last reported, filtered by a text in their name and
 * by state, sorted by a column of the Domains view, and cut to one page, with the totals a pager needs.
 * So the browser never receives thousands of hosts at once, and polls only the page it shows. Pure.
 */
import type { DomainInfo } from '../crawler/common/protocol.ts';
import { DOMAIN_STATES, type DomainSortKey, type DomainState, type SortDirection } from '../shared/enumerations.ts';

/** What a request asks for (docs/api.md, Domains). */
export interface DomainQuery {
  /** A case-insensitive part of the host name ('' for all). */
  q: string;
  state?: DomainState;
  sort: DomainSortKey;
  dir: SortDirection;
  limit: number;
  offset: number;
}

/** One page of hosts, how many match, how many there are, and how many of the matching ones are in each state. */
export interface DomainPage {
  domains: DomainInfo[];
  total: number;
  hosts: number;
  states: Record<DomainState, number>;
}

/** Busiest first: the order states are listed in when sorting by state ascending. */
const STATE_ORDER: Record<DomainState, number> = {
  crawling: 0,
  waiting: 1,
  backoff: 2,
  failing: 3,
  'robots-unreachable': 4,
  'robots-unusable': 5,
  'robots-blocked': 6,
  idle: 7,
};

function time(iso: string | null): number | null {
  if (iso === null) return null;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : t;
}

function value(domain: DomainInfo, key: DomainSortKey): string | number | null {
  switch (key) {
    case 'host':
      return domain.host;
    case 'state':
      return STATE_ORDER[domain.state] ?? 99;
    case 'fetched':
      return domain.fetched;
    case 'queued':
      return domain.queued;
    case 'errors':
      return domain.errors;
    case 'delay':
      return domain.crawlDelayMs;
    case 'lastFetch':
      return time(domain.lastFetchAt);
    case 'nextFetch':
      return time(domain.nextFetchAt);
    case 'robots':
      return domain.robots.status;
  }
}

/** Code-point order (host names are ASCII or punycode: no locale needed, and 5,000 rows sort in a few ms). */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Hosts whose name contains `filter` (case-insensitive), sorted; missing values (no fetch yet) always go
 * last, and ties fall back to the host name so rows never jump between polls. Does not reorder `domains`.
 */
export function sortDomains(
  domains: readonly DomainInfo[],
  sort: { key: DomainSortKey; dir: SortDirection },
  filter: string,
): DomainInfo[] {
  const needle = filter.trim().toLowerCase();
  const kept = needle === '' ? [...domains] : domains.filter((d) => d.host.toLowerCase().includes(needle));
  const sign = sort.dir === 'asc' ? 1 : -1;
  const keyed = kept.map((d) => ({ d, v: value(d, sort.key) }));
  keyed.sort((a, b) => {
    if (a.v === null && b.v !== null) return 1;
    if (b.v === null && a.v !== null) return -1;
    if (a.v !== null && b.v !== null && a.v !== b.v) {
      const order = typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : byText(String(a.v), String(b.v));
      if (order !== 0) return order * sign;
    }
    return byText(a.d.host, b.d.host);
  });
  return keyed.map((k) => k.d);
}

/** The page `query` asks for (see DomainQuery), with its totals. */
export function queryDomains(all: readonly DomainInfo[], query: DomainQuery): DomainPage {
  const named = sortDomains(all, { key: query.sort, dir: query.dir }, query.q);
  const states = Object.fromEntries(DOMAIN_STATES.map((s) => [s, 0])) as Record<DomainState, number>;
  for (const d of named) states[d.state] = (states[d.state] ?? 0) + 1;
  const matching = query.state === undefined ? named : named.filter((d) => d.state === query.state);
  return {
    domains: matching.slice(query.offset, query.offset + query.limit),
    total: matching.length,
    hosts: all.length,
    states,
  };
}
