/**
 * Browsing by operator: a query of only site:, label: or filetype: filters (`label:python`,
 * `filetype:pdf`, `site:docs.python.org`) lists the pages they select, newest first (by when they were
 * fetched), paged like any search. Bounded: the count stops at a cap, the list reads one page of ids
 * (with LIMIT/OFFSET, offset at most MAX_OFFSET). Both read the covering index pages_browse (migration
 * 0020: newest first, with every column the filters test), never the wide rows with their bodies.
 */
import type { Database, Statement } from 'better-sqlite3';
import { StatementCache } from './statement-cache.ts';
import { hostFilterSql } from './fts-search.ts';
import type { ParsedQuery } from './query-parser.ts';

/** True when a query has no words but selects pages with a site:, label: or filetype: filter. */
export function isBrowse(q: ParsedQuery): boolean {
  return q.items.length === 0 && (q.sites.length > 0 || (q.labels?.length ?? 0) > 0 || (q.fileTypes?.length ?? 0) > 0);
}

/** The pages a filters-only query selects, over one connection (statements cached by SQL text). */
export class FilterBrowse {
  readonly #statements: StatementCache;

  constructor(db: Database) {
    this.#statements = new StatementCache(db, 64);
  }

  #prepare(sql: string): Statement {
    return this.#statements.prepare(sql);
  }

  /** Ids of the selected pages from `offset`, at most `limit`, newest first (ties: the later stored first). */
  newest(q: ParsedQuery, offset: number, limit: number): number[] {
    const f = hostFilterSql(filtersOf(q));
    const sql = `SELECT p.id FROM pages p INDEXED BY pages_browse WHERE p.indexed = 1${f.where} ORDER BY p.fetched_at DESC, p.id DESC LIMIT ? OFFSET ?`;
    return this.#prepare(sql)
      .pluck()
      .all(...f.params, limit, offset) as number[];
  }

  /** How many pages the query selects, counting no further than `cap`. */
  count(q: ParsedQuery, cap: number): number {
    const f = hostFilterSql(filtersOf(q));
    const sql = `SELECT count(*) FROM (SELECT 1 FROM pages p INDEXED BY pages_browse WHERE p.indexed = 1${f.where} LIMIT ?)`;
    return this.#prepare(sql)
      .pluck()
      .get(...f.params, cap) as number;
  }
}

function filtersOf(q: ParsedQuery) {
  return { sites: q.sites, excludedSites: q.excludedSites, labels: q.labels, fileTypes: q.fileTypes };
}
