/**
 * The generated corpus of `npm run bench:search` (search-bench.ts): deterministic pages (page i is
 * the same text in every run) written through pageQueries().upsertPage, and the query workload.
 */
import { openDatabase } from '../../db/open.ts';
import { pageQueries } from '../../db/pages.ts';
import { linkTargetQueries } from '../../db/link-targets.ts';
import { seededRandom } from '../../test-support/seeded-random.ts';

const VOCAB_SIZE = 60_000;
const BATCH = 1000;
const QUERIES = 200;

/** The queries one bench run times: searches of 1-3 words and suggest prefixes. */
export interface Workload {
  searches: string[];
  suggests: string[];
}

/** 60k distinct pronounceable words, shortest first (frequent words are short, as in real text). */
function vocabulary(): string[] {
  const r = seededRandom(42);
  const c = 'bcdfghjklmnprstvwz';
  const v = 'aeiouy';
  const words = new Set<string>();
  while (words.size < VOCAB_SIZE) {
    const syllables = 1 + Math.floor(r() * r() * 4) + (words.size > 2000 ? 1 : 0);
    let w = '';
    for (let s = 0; s < syllables; s++)
      w +=
        c[Math.floor(r() * c.length)] +
        v[Math.floor(r() * v.length)] +
        (r() < 0.3 ? c[Math.floor(r() * c.length)] : '');
    words.add(w);
  }
  return [...words].sort((a, b) => a.length - b.length);
}

/** Zipf(s = 1) sampler over ranks 0..n-1 (cumulative weights and a binary search). */
function zipf(n: number): (u: number) => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cdf[i] = sum += 1 / (i + 1);
  return (u) => {
    const x = u * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const VOCAB = vocabulary();
const RANK = zipf(VOCAB_SIZE);
/** Titles and headings use content words: the 200 most frequent words are left out. */
const content = (r: () => number): string => VOCAB[Math.min(VOCAB_SIZE - 1, 200 + RANK(r()))];
const any = (r: () => number): string => VOCAB[RANK(r())];

export interface GenPage {
  url: string;
  host: string;
  title: string;
  headings: string[];
  description: string;
  body: string;
}

/** Page i: title 8 words, 3 headings of 4, description 20, body 600 in sentences, ~0.5 % identifiers. */
export function page(i: number): GenPage {
  const r = seededRandom(i * 2654435761 + 17);
  const words = (n: number, pick: (r: () => number) => string) => Array.from({ length: n }, () => pick(r));
  const title = words(8, content);
  const body: string[] = [];
  for (let w = 0; w < 600; w++) {
    let word = any(r);
    if (r() < 0.005) word = `${content(r)}${r() < 0.5 ? '_' : '-'}${content(r)}`;
    body.push(w % 12 === 0 ? word[0].toUpperCase() + word.slice(1) : word);
    if (w % 12 === 11) body[body.length - 1] += '.';
  }
  const host = `site${i % 500}.bench${i % 7}.test`;
  return {
    url: `http://${host}/${title[0]}/${title[1]}-${title[2]}/${i}`,
    host,
    title: title.join(' '),
    headings: [words(4, content).join(' '), words(4, content).join(' '), words(4, content).join(' ')],
    description: words(20, any).join(' '),
    body: body.join(' '),
  };
}

/** Links from each generated page to others (their anchor text: 3 words of the target's title). */
const LINKS_PER_PAGE = 5;

/** The title of page i (the first draws of page(i), without generating its body). */
function pageTitle(i: number): string[] {
  const r = seededRandom(i * 2654435761 + 17);
  return Array.from({ length: 8 }, () => content(r));
}

/**
 * Gives pages 0..n-1 the links a crawl would have recorded (link_targets, anchors_fts): each links
 * to LINKS_PER_PAGE others, a few of them popular (low page numbers), with 3 words of the target's
 * title as anchor text; and a link density (a page in 50 mostly links). Returns seconds taken.
 */
export function addLinks(dir: string, n: number): number {
  const db = openDatabase(dir);
  const links = linkTargetQueries(db);
  const ids = db.prepare('SELECT id, url FROM pages ORDER BY id').all() as Array<{ id: number; url: string }>;
  const density = db.prepare('UPDATE pages SET link_density = ? WHERE id = ?');
  const started = performance.now();
  for (let from = 0; from < ids.length; from += BATCH) {
    db.transaction(() => {
      for (let k = from; k < Math.min(ids.length, from + BATCH); k++) {
        const r = seededRandom(k * 7919 + 3);
        const out = Array.from({ length: LINKS_PER_PAGE }, (_, j) => {
          const t = j === 0 ? Math.floor(r() * r() * Math.min(n, 1000)) : Math.floor(r() * n);
          const title = pageTitle(t);
          const at = Math.floor(r() * 6);
          return { url: ids[t]?.url ?? '', text: title.slice(at, at + 3).join(' ') };
        }).filter((l) => l.url !== '' && l.url !== ids[k].url);
        links.recordLinks(ids[k].id, out);
        density.run(k % 50 === 0 ? 0.9 : 0.1 + r() * 0.2, ids[k].id);
      }
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return (performance.now() - started) / 1000;
}

/** Writes pages 0..n-1 in transactions of BATCH pages; returns seconds taken. */
export function buildCorpus(dir: string, n: number): number {
  const db = openDatabase(dir);
  const pages = pageQueries(db);
  db.prepare(
    "INSERT INTO seeds (id, url, origin, depth, scope, created_at, updated_at) VALUES (1, 'http://bench.test/', 'http://bench.test', 2, 'any', 0, 0)",
  ).run();
  const frontier = db.prepare(
    "INSERT INTO frontier (url, origin, seed_id, depth, state, inlinks, discovered_at) VALUES (?, ?, 1, 1, 'done', ?, 0)",
  );
  const started = performance.now();
  let indexMs = 0;
  for (let from = 0; from < n; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, n - from) }, (_, k) => page(from + k));
    const t = performance.now();
    db.transaction(() => {
      for (const [k, p] of batch.entries()) {
        pages.upsertPage({
          url: p.url,
          finalUrl: p.url,
          origin: `http://${p.host}`,
          host: p.host,
          seedId: 1,
          status: 200,
          contentType: 'text/html',
          title: p.title,
          description: p.description,
          headings: p.headings,
          body: p.body,
          lang: 'en',
          canonical: null,
          fetchedAt: Date.UTC(2024, 0, 1) + from + k,
          etag: null,
          lastModified: null,
          contentHash: null,
          noindex: false,
          nofollow: false,
          noarchive: false,
          nosnippet: false,
          indexed: true,
        });
      }
    })();
    indexMs += performance.now() - t;
    db.transaction(() => {
      for (const [k, p] of batch.entries())
        frontier.run(p.url, `http://${p.host}`, Math.floor(1 / (seededRandom(from + k)() + 0.001)));
    })();
    if ((from / BATCH) % 20 === 19)
      process.stdout.write(`  ${from + batch.length} pages, ${((performance.now() - started) / 1000).toFixed(0)} s\r`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return indexMs / 1000;
}

/** 200 searches of 1-3 words taken from random pages (not among the 100 most frequent words), and 200 prefixes. */
export function workload(n: number): Workload {
  const r = seededRandom(n + 99);
  const common = new Set(VOCAB.slice(0, 100));
  const searches: string[] = [];
  const suggests: string[] = [];
  while (searches.length < QUERIES) {
    const p = page(Math.floor(r() * n));
    const source = (r() < 0.5 ? p.title : p.body)
      .toLowerCase()
      .replace(/[^a-z_\s-]/g, '')
      .split(/\s+/);
    const candidates = source.filter((w) => w !== '' && !common.has(w));
    if (candidates.length === 0) continue;
    const k = 1 + Math.floor(r() * 3);
    const at = Math.floor(r() * Math.max(1, candidates.length - k));
    searches.push(candidates.slice(at, at + k).join(' '));
    const word = p.title.split(' ')[Math.floor(r() * 8)];
    const cut = word.slice(0, Math.min(word.length, 2 + Math.floor(r() * 5)));
    suggests.push(r() < 0.3 ? `${p.title.split(' ')[0]} ${cut}` : cut);
  }
  return { searches, suggests };
}
