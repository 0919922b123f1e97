// The Domains table's sort order as the person chooses it; the server sorts (server/domain-query.ts).
import type { DomainSortKey, SortDirection } from '../../shared/enumerations.ts';

/** Columns the Domains table can be sorted by (GET /api/domains `sort`). */
export type SortKey = DomainSortKey;

/** A sort order: column and direction. */
export interface Sort {
  key: SortKey;
  dir: SortDirection;
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
