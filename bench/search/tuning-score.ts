/**
 * Fast scoring for tuning question search (issue 31): searches a crawl kept by
 * `npm run bench:search -- --relevance-only --relevance-db FILE` with today's ranking (or with one
 * ranking option turned off) and scores only the keyword sets A and B and the TUNING questions, as
 * relevance.ts scores them (MRR within the top 10, top-3 hits). It never reads the held-out
 * questions: those are scored by the bench alone, totals only.
 *
 *   node --import tsx bench/search/tuning-score.ts FILE [--off synonyms,feedback,...] [--misses]
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DB_FILE, openDatabase } from '../../db/open.ts';
import { SearchService } from '../../server/search/search-service.ts';
import type { RankingOptions } from '../../server/search/search-options.ts';
import { TUNING_QUESTIONS } from './questions-tuning.ts';
import { QUERY_SETS } from './relevance-queries.ts';
import type { Judged } from './relevance-queries.ts';

const SETS: Record<string, readonly Judged[]> = { ...QUERY_SETS, 'Q-tune': TUNING_QUESTIONS };
const OPTIONS: ReadonlyArray<keyof RankingOptions> = [
  'anchors',
  'linkInlinks',
  'linkDensity',
  'questions',
  'synonyms',
  'topicAnchors',
  'feedback',
];

/** One set's score: MRR, top-3 hits, and the queries not in the top 3 (with the rank found, '-' for none in 10). */
interface Scored {
  mrr: number;
  top3: number;
  misses: string[];
}

/** Scores `search` (a query → its first 10 URLs) on `queries` the way relevance.ts does. */
function score(search: (q: string) => string[], queries: readonly Judged[]): Scored {
  let rr = 0;
  let top3 = 0;
  const misses: string[] = [];
  for (const q of queries) {
    const at = search(q.query).findIndex((url) => q.meant.some((m) => new URL(url).pathname.endsWith(`/${m}`)));
    if (at >= 0) rr += 1 / (at + 1);
    if (at >= 0 && at < 3) top3++;
    else misses.push(`${q.query} (${at < 0 ? '-' : `#${at + 1}`})`);
  }
  return { mrr: rr / queries.length, top3, misses };
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { off: { type: 'string', default: '' }, misses: { type: 'boolean', default: false } },
});
const file = positionals[0];
if (file === undefined) throw new Error('tuning-score: give the kept crawl (--relevance-db FILE of bench:search)');
const off = values.off.split(',').filter((o) => o !== '');
for (const o of off) if (!OPTIONS.includes(o as keyof RankingOptions)) throw new Error(`tuning-score: no option ${o}`);

// A copy, so the kept crawl is never written to.
const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-tuning-'));
try {
  copyFileSync(file, path.join(dir, DB_FILE));
  const db = openDatabase(dir);
  const service = new SearchService(db, { ranking: Object.fromEntries(off.map((o) => [o, false])) });
  while (!service.ready) {
    service.refresh();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const search = (q: string) => service.search(q, { limit: 10, offset: 0 }).results.map((r) => r.url);
  for (const [name, queries] of Object.entries(SETS)) {
    const s = score(search, queries);
    console.log(`${name}: MRR ${s.mrr.toFixed(3)}, top-3 ${s.top3}/${queries.length}`);
    if (values.misses && s.misses.length > 0) console.log(`  not in the top 3: ${s.misses.join('; ')}`);
  }
  service.close();
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
