// Pure sorting and filtering of the Domains table.
import type { Domain, DomainState } from './api.ts';

/** Columns the Domains table can be sorted by. */
export type SortKey = 'host' | 'state' | 'fetched' | 'queued' | 'errors' | 'delay' | 'lastFetch' | 'nextFetch' | 'robots';

/** A sort order: column and direction. */
export interface Sort {
  key: SortKey;
  dir: 'asc' | 'desc';
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

function value(domain: Domain, key: SortKey): string | number | null {
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

/** The direction a column sorts in when first clicked: numbers and times biggest/latest first, text A–Z. */
export function firstDirection(key: SortKey): Sort['dir'] {
  return key === 'host' || key === 'state' || key === 'robots' || key === 'nextFetch' ? 'asc' : 'desc';
}

/** The sort after clicking a column header: a new column starts in its natural direction, the same one flips. */
export function nextSort(current: Sort, key: SortKey): Sort {
  if (current.key !== key) return { key, dir: firstDirection(key) };
  return { key, dir: current.dir === 'asc' ? 'desc' : 'asc' };
}

/**
 * Filters hosts by a case-insensitive substring and sorts them; missing values (no fetch yet) always go
 * last, and ties fall back to the host name so rows never jump between polls.
 */
export function sortDomains(domains: Domain[], sort: Sort, filter: string): Domain[] {
  const needle = filter.trim().toLowerCase();
  const kept = needle === '' ? [...domains] : domains.filter((d) => d.host.toLowerCase().includes(needle));
  const sign = sort.dir === 'asc' ? 1 : -1;
  return kept.sort((a, b) => {
    const va = value(a, sort.key);
    const vb = value(b, sort.key);
    if (va === null && vb !== null) return 1;
    if (vb === null && va !== null) return -1;
    if (va !== null && vb !== null && va !== vb) {
      const order = typeof va === 'number' && typeof vb === 'number' ? va - vb : String(va).localeCompare(String(vb));
      if (order !== 0) return order * sign;
    }
    return a.host.localeCompare(b.host);
  });
}
