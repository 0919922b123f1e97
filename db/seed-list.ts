/**
 * The Seeds library's listing: one page of seeds matching a search (title, URL or label), a label and a
 * state, in a chosen order, and how many match in all. Built for tens of thousands of seeds: the search,
 * the label and the order run on the seeds table alone; a state filter (derived from the frontier, see
 * SEED_STATE) is applied to those rows after.
 */
import type { Database, Statement } from 'better-sqlite3';
import { fromSql, SEED_STATES, type SeedRow, type SeedSqlRow, type SeedState, seedSelect } from './seeds.ts';

/** The orders a seed list can be in (GET /api/seeds `sort`). */
export const SEED_SORTS = ['newest', 'oldest', 'title', 'url'] as const;
/** One of SEED_SORTS. */
export type SeedSort = (typeof SEED_SORTS)[number];

/** What to list: every field optional but the page. */
export interface SeedFilter {
  /** Text each seed's title, URL or one of its labels contains (case-insensitive for ASCII). */
  query?: string;
  label?: string;
  state?: SeedState;
  sort?: SeedSort;
  limit: number;
  offset: number;
}

/** ORDER BY of each sort, on `seeds s` (inner) and on the rows it gave (outer); the id breaks ties. */
const ORDER: Record<SeedSort, { inner: string; outer: string }> = {
  newest: { inner: 's.id DESC', outer: 'id DESC' },
  oldest: { inner: 's.id ASC', outer: 'id ASC' },
  title: {
    inner: 'coalesce(s.title, s.url) COLLATE NOCASE, s.id',
    outer: 'coalesce(title, url) COLLATE NOCASE, id',
  },
  url: { inner: 's.url, s.id', outer: 'url, id' },
};

/** `text` as a LIKE pattern matching it anywhere, its own % _ and \ taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Prepared listings, one per shape of filter, created as they are first asked for. */
export function seedListQueries(db: Database) {
  const cache = new Map<string, { page: Statement; count: Statement }>();

  function statements(hasQuery: boolean, hasLabel: boolean, state: SeedState | undefined, sort: SeedSort) {
    const key = `${hasQuery}|${hasLabel}|${state ?? ''}|${sort}`;
    const known = cache.get(key);
    if (known !== undefined) return known;
    const where = [state === 'removed' ? 's.removed_at IS NOT NULL' : 's.removed_at IS NULL'];
    if (hasQuery)
      where.push(`(s.title LIKE @query ESCAPE '\\' OR s.url LIKE @query ESCAPE '\\'
        OR EXISTS (SELECT 1 FROM seed_labels l WHERE l.seed_id = s.id AND l.label LIKE @query ESCAPE '\\'))`);
    if (hasLabel) where.push('s.id IN (SELECT seed_id FROM seed_labels WHERE label = @label)');
    const base = `WHERE ${where.join(' AND ')}`;
    const order = ORDER[sort];
    const made =
      state === undefined || state === 'removed'
        ? {
            page: db.prepare(
              seedSelect(`${base} ORDER BY ${order.inner} LIMIT @limit OFFSET @offset`, `ORDER BY ${order.outer}`),
            ),
            count: db.prepare(`SELECT count(*) FROM seeds s ${base}`).pluck(),
          }
        : {
            // The state comes from the frontier: every matching seed's is computed, then one page is kept.
            page: db.prepare(
              seedSelect(`${base}`, `WHERE state = @state ORDER BY ${order.outer} LIMIT @limit OFFSET @offset`),
            ),
            count: db.prepare(`SELECT count(*) FROM (${seedSelect(base)}) WHERE state = @state`).pluck(),
          };
    cache.set(key, made);
    return made;
  }

  return {
    /** One page of the seeds matching `filter`, and how many match in all. */
    findSeeds(filter: SeedFilter): { seeds: SeedRow[]; total: number } {
      const query = filter.query?.trim() ?? '';
      const sort = filter.sort ?? 'newest';
      if (filter.state !== undefined && !SEED_STATES.includes(filter.state))
        throw new Error(`seed-list: unknown state ${filter.state}; use one of ${SEED_STATES.join(', ')}`);
      const { page, count } = statements(query !== '', filter.label !== undefined, filter.state, sort);
      const params: Record<string, string | number> = { limit: filter.limit, offset: filter.offset };
      if (query !== '') params.query = containsPattern(query);
      if (filter.label !== undefined) params.label = filter.label;
      if (filter.state !== undefined && filter.state !== 'removed') params.state = filter.state;
      const countParams = { ...params };
      delete countParams.limit;
      delete countParams.offset;
      return {
        seeds: (page.all(params) as SeedSqlRow[]).map(fromSql),
        total: count.get(countParams) as number,
      };
    },
  };
}
