/**
 * Prepared statements cached by their SQL text, over one connection. The search's queries are built per
 * query shape (a filter, a column set, a number of ids), so the same few shapes recur: preparing each once
 * saves SQLite's parse and plan on every search. Bounded: past `max` shapes the cache starts again.
 */
import type { Database, Statement } from 'better-sqlite3';

/** A bounded cache of prepared statements keyed by SQL text (see the module comment). */
export class StatementCache {
  readonly #db: Database;
  readonly #max: number;
  readonly #cache = new Map<string, Statement>();

  constructor(db: Database, max: number) {
    this.#db = db;
    this.#max = max;
  }

  /** The statement for `sql`, prepared on first use. */
  prepare(sql: string): Statement {
    let stmt = this.#cache.get(sql);
    if (stmt === undefined) {
      if (this.#cache.size >= this.#max) this.#cache.clear();
      stmt = this.#db.prepare(sql);
      this.#cache.set(sql, stmt);
    }
    return stmt;
  }
}
