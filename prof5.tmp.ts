import { openDatabase } from './db/open.ts';
import { pageQueries } from './db/pages.ts';
import { TitleIndex } from './server/search/title-index.ts';
import { FtsSearch } from './server/search/fts-search.ts';
import { completePhrases, foldedWords } from './server/search/phrase-completion.ts';
import { workload } from './bench/search/search-corpus.ts';
const db = openDatabase('/tmp/lantern-search-bench-100000', { readonly: true, migrate: false });
const t = new TitleIndex(pageQueries(db), { snapshot: { file: '/tmp/lantern-search-bench-100000/title-index.snapshot', warn: console.error } });
t.catchUpLater(); while (!t.ready) await new Promise((r) => setTimeout(r, 5));
const fts = new FtsSearch(db);
const qs = workload(100000).suggests;
const rows: Array<[number, number, number, number, string]> = [];
for (const q of qs) {
  const words = foldedWords(q);
  const a = performance.now();
  const hits = words[words.length - 1].length < 3 ? [] : t.search(words, { prefixLast: true, fuzzyLast: false, limit: 60, combineWith: 'AND', fields: ['title', 'headings'] }).hits;
  const b = performance.now();
  const texts = fts.shortTexts(hits.map((h) => h.id));
  const c = performance.now();
  completePhrases({ words, open: false }, [...texts.values()].map((x) => ({ title: x.title, headings: x.headings, weight: 1 })), 8);
  const d = performance.now();
  rows.push([d - a, b - a, c - b, d - c, `${q} (${hits.length})`]);
}
rows.sort((x, y) => y[0] - x[0]);
for (const r of rows.slice(0, 8)) console.log(r.slice(0, 4).map((x) => (x as number).toFixed(1)).join(' / '), r[4]);
const sum = (i: number) => rows.reduce((s, r) => s + (r[i] as number), 0).toFixed(0);
console.log('sum total/search/texts/phrases', sum(0), sum(1), sum(2), sum(3));
