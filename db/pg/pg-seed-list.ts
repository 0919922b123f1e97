/**
 * The Seeds library's listing on PostgreSQL, as db/seed-list.ts lists on SQLite: the search, the label and the
 * order on the seeds table, the state (derived from the frontier) filtered after. SQLite's LIKE and NOCASE
 * fold ASCII letters only; here ILIKE and lower() run under COLLATE "C", which folds the same letters, so
 * both engines find and order the same seeds. One named statement per shape of filter.
 */
import type pg from 'pg';
import { fromSql, SEED_STATES, type SeedSqlRow, type SeedState } from '../seeds.ts';
import { containsPattern, type SeedSort } from '../seed-list.ts';
import type { SeedListStore } from '../server-store.ts';
import { row, rows, statement, type Statement } from './pool.ts';
import { pgSeedSelect } from './pg-seeds.ts';

/** ORDER BY of each sort, on `seeds s` (inner) and on the rows it gave (outer); the id breaks ties. */
const ORDER: Record<SeedSort, { inner: string; outer: string }> = {
  newest: { inner: 's.id DESC', outer: 'id DESC' },
  oldest: { inner: 's.id ASC', outer: 'id ASC' },
  title: {
    inner: 'lower(coalesce(s.title, s.url) COLLATE "C"), s.id',
    outer: 'lower(coalesce(title, url) COLLATE "C"), id',
  },
  url: { inner: 's.url COLLATE "C", s.id', outer: 'url COLLATE "C", id' },
};

/** `text` ILIKE the pattern in parameter `$n`, backslash escaping. */
const matches = (column: string, n: number) => `${column} COLLATE "C" ILIKE $${n} ESCAPE '\\'`;

/** The listing port on PostgreSQL (see SeedListStore). */
export function pgSeedListStore(pool: pg.Pool): SeedListStore {
  const cache = new Map<string, { page: Statement; count: Statement }>();

  /** The statements of one shape; parameters in order: query, label, state, then limit and offset (page only). */
  function statements(hasQuery: boolean, hasLabel: boolean, state: SeedState | undefined, sort: SeedSort) {
    const key = `${hasQuery}|${hasLabel}|${state ?? ''}|${sort}`;
    const known = cache.get(key);
    if (known !== undefined) return known;
    let n = 0;
    const where = [state === 'removed' ? 's.removed_at IS NOT NULL' : 's.removed_at IS NULL'];
    if (hasQuery) {
      const q = ++n;
      where.push(`(${matches('s.title', q)} OR ${matches('s.url', q)}
        OR EXISTS (SELECT 1 FROM seed_labels l WHERE l.seed_id = s.id AND ${matches('l.label', q)}))`);
    }
    if (hasLabel) where.push(`s.id IN (SELECT seed_id FROM seed_labels WHERE label = $${++n})`);
    const base = `WHERE ${where.join(' AND ')}`;
    const order = ORDER[sort];
    const name = `seed-list.${key}`;
    let made: { page: Statement; count: Statement };
    if (state === undefined || state === 'removed') {
      made = {
        page: statement(
          `${name}.page`,
          pgSeedSelect(`${base} ORDER BY ${order.inner} LIMIT $${n + 1} OFFSET $${n + 2}`, `ORDER BY ${order.outer}`),
        ),
        count: statement(`${name}.count`, `SELECT count(*) AS n FROM seeds s ${base}`),
      };
    } else {
      // The state comes from the frontier: every matching seed's is computed, then one page is kept.
      const s = ++n;
      made = {
        page: statement(
          `${name}.page`,
          pgSeedSelect(base, `WHERE state = $${s} ORDER BY ${order.outer} LIMIT $${n + 1} OFFSET $${n + 2}`),
        ),
        count: statement(`${name}.count`, `SELECT count(*) AS n FROM (${pgSeedSelect(base)}) AS c WHERE state = $${s}`),
      };
    }
    cache.set(key, made);
    return made;
  }

  return {
    async findSeeds(filter) {
      const query = filter.query?.trim() ?? '';
      const sort = filter.sort ?? 'newest';
      if (filter.state !== undefined && !SEED_STATES.includes(filter.state))
        throw new Error(`pg-seed-list: unknown state ${filter.state}; use one of ${SEED_STATES.join(', ')}`);
      const { page, count } = statements(query !== '', filter.label !== undefined, filter.state, sort);
      const params: unknown[] = [];
      if (query !== '') params.push(containsPattern(query));
      if (filter.label !== undefined) params.push(filter.label);
      if (filter.state !== undefined && filter.state !== 'removed') params.push(filter.state);
      const [found, total] = await Promise.all([
        rows<SeedSqlRow>(pool, page, [...params, filter.limit, filter.offset]),
        row<{ n: number }>(pool, count, params),
      ]);
      return { seeds: found.map(fromSql), total: total?.n ?? 0 };
    },
  };
}
