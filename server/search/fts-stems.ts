/**
 * Words as the full-text index holds them: the stem FTS5's tokenizer (porter over unicode61, as
 * pages_fts is made: db/migrations/0002-search.sql) makes of a typed word, so that "Files" and
 * "file" are known as the one index word "file". CommonTerms keys its verdicts by it
 * (CandidateLists #rankExpression), so the start-up warm-up, which knows the index's words
 * (term-warm-up.ts), decides for every spelling a person may type. SQLite has no tokenize
 * function: the word is indexed alone in a temporary FTS5 table of this connection (nothing is
 * written to the database file) and read back through its vocabulary; each answer is kept.
 */
import type { Database, Statement } from 'better-sqlite3';

/** Stems kept before the cache starts again (a few µs each to make again). */
const STEMS_MAX = 20_000;

/** The index words of typed words, over one connection (see the file comment). */
export class FtsStems {
  readonly #db: Database;
  readonly #cache = new Map<string, string | null>();
  #statements: { insert: Statement; read: Statement; clear: Statement } | undefined;

  /** Stems with `db`'s temporary schema (read-only connections have one too). */
  constructor(db: Database) {
    this.#db = db;
  }

  /** The one index word `word` becomes; undefined when it makes none or several (`rog_zon` is two). */
  stem(word: string): string | undefined {
    const hit = this.#cache.get(word);
    if (hit !== undefined) return hit ?? undefined;
    const s = this.#prepared();
    s.insert.run(word);
    const terms = s.read.all() as string[];
    s.clear.run();
    const stem = terms.length === 1 ? terms[0] : null;
    if (this.#cache.size >= STEMS_MAX) this.#cache.clear();
    this.#cache.set(word, stem);
    return stem ?? undefined;
  }

  #prepared(): { insert: Statement; read: Statement; clear: Statement } {
    if (this.#statements === undefined) {
      this.#db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.lantern_stems
          USING fts5(t, tokenize = 'porter unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE IF NOT EXISTS temp.lantern_stems_v USING fts5vocab(temp, lantern_stems, 'row');`);
      this.#statements = {
        insert: this.#db.prepare('INSERT INTO temp.lantern_stems (rowid, t) VALUES (1, ?)'),
        read: this.#db.prepare('SELECT term FROM temp.lantern_stems_v').pluck(),
        clear: this.#db.prepare('DELETE FROM temp.lantern_stems'),
      };
    }
    return this.#statements;
  }
}
