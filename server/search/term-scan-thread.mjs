// @ts-check
/**
 * The worker thread of the search warm-up (term-warm-up.ts starts it; plain JavaScript, so that it runs
 * unbundled from the sources and from `npm start` alike). On a read-only connection of its own it
 * 1. reads the full-text index's vocabulary once, in term order (pages_fts_vocab: every word's posting
 *    list, so the index's pages pass through the OS page cache before searches meet them at random),
 *    and posts the `maxTerms` index words in the most pages, each with its page count and whether it
 *    stems to itself (then a quoted query of it means its own list): { type: 'terms', terms:
 *    [[word, pages, stemsToItself], ...] };
 *    then reads the other structures searches read (WARM_READS) whole, in order, for the page cache;
 * 2. answers one { type: 'count', expressions, rows, cap } with, for each expression, the matches among
 *    the newest `rows` pages and all matches counted up to `cap` (the SQL of FtsSearch.newestCount and
 *    FtsSearch.count): { type: 'counts', counts: [[newest, count], ...] }; then closes and ends.
 * Any failure is posted as { type: 'failed', message }. SQL only: the rule those counts decide is
 * common-terms.ts's.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/**
 * Whole-structure reads of what searches read besides pages_fts's postings: the covering index of a result's
 * facts (FtsSearch.meta, migration 0022), pages' url index and the link targets with their url index and
 * anchor-text index (anchor ranking and inlinks). Each reads every entry, so every page of it.
 */
const WARM_READS = [
  'SELECT max(length(description) + length(title) + length(headings) + fetched_at) FROM pages INDEXED BY pages_short_texts',
  'SELECT max(length(url)) FROM pages INDEXED BY sqlite_autoindex_pages_1',
  'SELECT max(length(anchors) + inlinks) FROM link_targets',
  'SELECT max(length(url)) FROM link_targets INDEXED BY sqlite_autoindex_link_targets_1',
  'SELECT sum(length(block)) FROM anchors_fts_data',
];

const port = parentPort;
if (port === null) throw new Error('term-scan-thread: started outside a worker thread');
/** @type {{ file: string; maxTerms: number }} */
const input = workerData;

/** @type {import('better-sqlite3').Database | undefined} */
let db;
try {
  db = new Database(input.file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  /** @type {Array<[string, number]>} */
  const top = [];
  // The whole vocabulary, one term at a time (each is a read of its posting list); the most common kept.
  for (const row of db.prepare('SELECT term, doc FROM pages_fts_vocab').raw().iterate()) {
    const [term, doc] = /** @type {[string, number]} */ (row);
    top.push([term, doc]);
    if (top.length >= 2 * input.maxTerms) {
      top.sort((a, b) => b[1] - a[1]);
      top.length = input.maxTerms;
    }
  }
  top.sort((a, b) => b[1] - a[1]);
  top.length = Math.min(top.length, input.maxTerms);
  // Which of them stem to themselves: each one indexed alone by the same tokenizer, in a temporary table.
  db.exec(`CREATE VIRTUAL TABLE temp.lantern_stems USING fts5(t, tokenize = 'porter unicode61 remove_diacritics 2');
    CREATE VIRTUAL TABLE temp.lantern_stems_v USING fts5vocab(temp, lantern_stems, 'instance');`);
  const insert = db.prepare('INSERT INTO temp.lantern_stems (rowid, t) VALUES (?, ?)');
  db.transaction(() => {
    for (const [i, [term]] of top.entries()) insert.run(i + 1, term);
  })();
  const stems = new Map(
    db
      .prepare('SELECT doc, term FROM temp.lantern_stems_v')
      .raw()
      .all()
      .map((r) => /** @type {[number, string]} */ (r)),
  );
  const terms = top.map(([term, doc], i) => [term, doc, stems.get(i + 1) === term]);
  port.postMessage({ type: 'terms', terms });
  port.once('message', (/** @type {{ expressions: string[]; rows: number; cap: number }} */ ask) => {
    try {
      const newest = /** @type {import('better-sqlite3').Database} */ (db).prepare(`SELECT count(*) FROM pages_fts
        WHERE pages_fts MATCH ? AND pages_fts.rowid > (SELECT coalesce(max(id), 0) FROM pages) - ?`);
      const count = /** @type {import('better-sqlite3').Database} */ (db).prepare(
        'SELECT count(*) AS n FROM (SELECT 1 FROM pages_fts WHERE pages_fts MATCH ? LIMIT ?)',
      );
      const counts = ask.expressions.map((e) => [newest.pluck().get(e, ask.rows), count.pluck().get(e, ask.cap)]);
      db?.close();
      port.postMessage({ type: 'counts', counts });
    } catch (err) {
      db?.close();
      port.postMessage({ type: 'failed', message: String(/** @type {Error} */ (err).message) });
    }
  });
  // While the verdicts are planned: what every search reads besides the postings, read once in order so that it
  // is in the page cache before searches meet it at random (the ask above waits for this).
  for (const sql of WARM_READS) db.prepare(sql).get();
} catch (err) {
  db?.close();
  port.postMessage({ type: 'failed', message: String(/** @type {Error} */ (err).message) });
}
