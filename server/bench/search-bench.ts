/**
 * `npm run bench:search` — search at 10k and 100k generated pages (1M with --million): time to
 * index, database size, server RSS/heap after start, time from start to ready, and p50/p99 latency
 * of 200 searches and 200 suggests (measured twice), beside plain FTS5 (bm25 + snippet, nothing
 * else) on the same database and queries. Prints the figures and adds them to docs/benchmarks.md.
 *
 * Each measured server runs in a child process of its own (this file, forked with `--child`), so
 * its RSS is that of a server that opened the database and built its title index, not of the
 * generator. Flags: --sizes 10000,100000  --million  --keep (leave the databases in the temp dir)
 * --reuse (measure databases a --keep run left, without indexing again)  --no-doc (do not write
 * docs/benchmarks.md).
 */
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openDatabase, DB_FILE } from '../../db/open.ts';
import { pageQueries } from '../../db/pages.ts';
import { SearchService } from '../search/search-service.ts';
import { machineInfo, writeSection } from '../../crawler/bench/benchmarks-doc.ts';

const SELF = fileURLToPath(import.meta.url);
const DOC = path.join(path.dirname(SELF), '..', '..', 'docs', 'benchmarks.md');
const MARKERS = { start: '<!-- search:start -->', end: '<!-- search:end -->' } as const;
const VOCAB_SIZE = 60_000;
const BATCH = 1000;
const QUERIES = 200;

// ---------- deterministic corpus ----------

/** mulberry32: a small seeded PRNG, so page i is the same text in every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** 60k distinct pronounceable words, shortest first (frequent words are short, as in real text). */
function vocabulary(): string[] {
  const r = rng(42);
  const c = 'bcdfghjklmnprstvwz';
  const v = 'aeiouy';
  const words = new Set<string>();
  while (words.size < VOCAB_SIZE) {
    const syllables = 1 + Math.floor(r() * r() * 4) + (words.size > 2000 ? 1 : 0);
    let w = '';
    for (let s = 0; s < syllables; s++) w += c[Math.floor(r() * c.length)] + v[Math.floor(r() * v.length)] + (r() < 0.3 ? c[Math.floor(r() * c.length)] : '');
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

interface GenPage { url: string; host: string; title: string; headings: string[]; description: string; body: string }

/** Page i: title 8 words, 3 headings of 4, description 20, body 600 in sentences, ~0.5 % identifiers. */
function page(i: number): GenPage {
  const r = rng(i * 2654435761 + 17);
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

/** Writes pages 0..n-1 in transactions of BATCH pages; returns seconds taken. */
function buildCorpus(dir: string, n: number): number {
  const db = openDatabase(dir);
  const pages = pageQueries(db);
  db.prepare("INSERT INTO seeds (id, url, origin, depth, scope, created_at, updated_at) VALUES (1, 'http://bench.test/', 'http://bench.test', 2, 'any', 0, 0)").run();
  const frontier = db.prepare("INSERT INTO frontier (url, origin, seed_id, depth, state, inlinks, discovered_at) VALUES (?, ?, 1, 1, 'done', ?, 0)");
  const started = performance.now();
  let indexMs = 0;
  for (let from = 0; from < n; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, n - from) }, (_, k) => page(from + k));
    const t = performance.now();
    db.transaction(() => {
      for (const [k, p] of batch.entries()) {
        pages.upsertPage({
          url: p.url, finalUrl: p.url, origin: `http://${p.host}`, host: p.host, seedId: 1, status: 200,
          contentType: 'text/html', title: p.title, description: p.description, headings: p.headings, body: p.body,
          lang: 'en', canonical: null, fetchedAt: Date.UTC(2024, 0, 1) + from + k, etag: null, lastModified: null,
          contentHash: null, noindex: false, nofollow: false, indexed: true,
        });
      }
    })();
    indexMs += performance.now() - t;
    db.transaction(() => {
      for (const [k, p] of batch.entries()) frontier.run(p.url, `http://${p.host}`, Math.floor(1 / (rng(from + k)() + 0.001)));
    })();
    if ((from / BATCH) % 20 === 19) process.stdout.write(`  ${from + batch.length} pages, ${((performance.now() - started) / 1000).toFixed(0)} s\r`);
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return indexMs / 1000;
}

/** 200 searches of 1-3 words taken from random pages (not among the 100 most frequent words), and 200 prefixes. */
function workload(n: number): { searches: string[]; suggests: string[] } {
  const r = rng(n + 99);
  const common = new Set(VOCAB.slice(0, 100));
  const searches: string[] = [];
  const suggests: string[] = [];
  while (searches.length < QUERIES) {
    const p = page(Math.floor(r() * n));
    const source = (r() < 0.5 ? p.title : p.body).toLowerCase().replace(/[^a-z_\s-]/g, '').split(/\s+/);
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

// ---------- measured children ----------

interface Latency { p50: number; p99: number; mean: number }
interface ChildReport {
  openMs: number; readyMs: number; maxLoopBlockMs: number; rssMB: number; heapMB: number; rssAfterMB: number;
  search: Latency[]; suggest: Latency[]; medianTotal: number;
}

function latency(samples: number[]): Latency {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

const MB = (n: number) => Math.round(n / 1024 / 1024);

function timeEach(items: string[], fn: (q: string) => unknown): number[] {
  return items.map((q) => {
    const t = performance.now();
    fn(q);
    return performance.now() - t;
  });
}

/** Child: the full search service (mode 'service') or plain FTS5 (mode 'plain') over `dir`. */
async function child(mode: string, dir: string, work: { searches: string[]; suggests: string[] }): Promise<ChildReport> {
  const t0 = performance.now();
  const db = openDatabase(dir, { readonly: mode === 'plain', migrate: false });
  const openMs = performance.now() - t0;
  const totals: number[] = [];
  if (mode === 'plain') {
    const stmt = db.prepare(`SELECT p.url, p.title, snippet(pages_fts, 3, '[', ']', '…', 28) AS s
      FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid WHERE pages_fts MATCH ? ORDER BY bm25(pages_fts) LIMIT 10`);
    const run = (q: string) => stmt.all(q.split(/\s+/).map((w) => `"${w}"`).join(' AND '));
    const rss = MB(process.memoryUsage().rss);
    const search = [latency(timeEach(work.searches, run)), latency(timeEach(work.searches, run))];
    return { openMs, readyMs: 0, maxLoopBlockMs: 0, rssMB: rss, heapMB: MB(process.memoryUsage().heapUsed), rssAfterMB: MB(process.memoryUsage().rss), search, suggest: [], medianTotal: 0 };
  }
  const service = new SearchService(db);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const started = performance.now();
  service.start();
  while (!service.ready) await new Promise((resolve) => setTimeout(resolve, 5));
  const readyMs = performance.now() - started;
  loop.disable();
  const rssMB = MB(process.memoryUsage().rss);
  const heapMB = MB(process.memoryUsage().heapUsed);
  const doSearch = (q: string) => totals.push(service.search(q, { limit: 10, offset: 0 }).total);
  const doSuggest = (q: string) => service.suggest(q, 8);
  const search = [latency(timeEach(work.searches, doSearch)), latency(timeEach(work.searches, doSearch))];
  const suggest = [latency(timeEach(work.suggests, doSuggest)), latency(timeEach(work.suggests, doSuggest))];
  service.close();
  return {
    openMs, readyMs, maxLoopBlockMs: loop.max / 1e6, rssMB, heapMB, rssAfterMB: MB(process.memoryUsage().rss),
    search, suggest, medianTotal: [...totals].sort((a, b) => a - b)[totals.length >> 1],
  };
}

function runChild(mode: string, dir: string, work: { searches: string[]; suggests: string[] }): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const proc = fork(SELF, ['--child', mode, dir], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    proc.once('message', (m) => resolve(m as ChildReport));
    proc.once('error', reject);
    proc.once('exit', (code) => { if (code !== 0) reject(new Error(`search-bench: child ${mode} exited with ${code}`)); });
    proc.send(work);
  });
}

// ---------- report ----------

const f1 = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const lat = (l: Latency[]) => l.map((x) => `${f1(x.p50)} / ${f1(x.p99)}`).join(' · ');

interface SizeResult { n: number; indexS: number; dbMB: number; service: ChildReport; plain: ChildReport }

function table(results: SizeResult[]): string {
  const rows = [
    '| pages | index s | db MB | ready ms | max loop block ms | RSS MB (heap) at ready | search p50 / p99 ms (run 1 · run 2) | suggest p50 / p99 ms | plain FTS5 p50 / p99 ms | plain RSS MB | median total |',
    '|---:|---:|---:|---:|---:|---:|---|---|---|---:|---:|',
  ];
  for (const r of results) {
    rows.push(`| ${r.n.toLocaleString('en')} | ${r.indexS.toFixed(1)} | ${r.dbMB} | ${r.service.readyMs.toFixed(0)} | ${r.service.maxLoopBlockMs.toFixed(0)} | ${r.service.rssMB} (${r.service.heapMB}) | ${lat(r.service.search)} | ${lat(r.service.suggest)} | ${lat(r.plain.search)} | ${r.plain.rssMB} | ${r.service.medianTotal} |`);
  }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    process.once('message', (work) => {
      child(args[1], args[2], work as { searches: string[]; suggests: string[] })
        .then((report) => process.send?.(report, () => process.exit(0)))
        .catch((err) => { console.error(err); process.exit(1); });
    });
    return;
  }
  const sizesArg = args.includes('--sizes') ? args[args.indexOf('--sizes') + 1] : '10000,100000';
  const sizes = sizesArg.split(',').map(Number).filter((n) => n > 0);
  if (args.includes('--million')) sizes.push(1_000_000);
  const m = machineInfo();
  const loadAtStart = os.loadavg()[0];
  console.log(`search-bench: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}; sizes ${sizes.join(', ')}`);
  const results: SizeResult[] = [];
  for (const n of sizes) {
    const dir = path.join(os.tmpdir(), `lantern-search-bench-${n}`);
    const metaFile = path.join(dir, 'bench-meta.json');
    let indexS: number;
    if (args.includes('--reuse') && existsSync(metaFile)) {
      indexS = (JSON.parse(readFileSync(metaFile, 'utf8')) as { indexS: number }).indexS;
      console.log(`\n${n.toLocaleString('en')} pages: reusing ${dir} (indexed earlier in ${indexS.toFixed(1)} s)`);
    } else {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      console.log(`\n${n.toLocaleString('en')} pages: generating and indexing…`);
      indexS = buildCorpus(dir, n);
      writeFileSync(metaFile, JSON.stringify({ n, indexS }));
    }
    const file = path.join(dir, DB_FILE);
    const dbMB = MB(statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0));
    console.log(`  indexed in ${indexS.toFixed(1)} s (${(n / indexS).toFixed(0)} pages/s); database ${dbMB} MB`);
    const work = workload(n);
    const service = await runChild('service', dir, work);
    const plain = await runChild('plain', dir, work);
    const r: SizeResult = { n, indexS, dbMB, service, plain };
    results.push(r);
    console.log(`  ready in ${service.readyMs.toFixed(0)} ms (event loop blocked at most ${service.maxLoopBlockMs.toFixed(0)} ms); RSS ${service.rssMB} MB, heap ${service.heapMB} MB`);
    console.log(`  search p50/p99 ms: ${lat(service.search)}; suggest: ${lat(service.suggest)}; plain FTS5: ${lat(plain.search)} (RSS ${plain.rssMB} MB)`);
    if (!args.includes('--keep')) rmSync(dir, { recursive: true, force: true });
  }
  const last = results[results.length - 1];
  let million = '';
  if (last !== undefined && last.n < 1_000_000) {
    const estimate = (last.indexS * (1_000_000 / last.n)) / 60;
    million = `1M pages (\`--million\`, not run) would take about ${estimate.toFixed(0)} min to index at this run's rate, and ~${(last.dbMB * 1_000_000 / last.n / 1024).toFixed(1)} GB of disk.`;
    console.log(`\n${million}`);
  }
  console.log(`\n${table(results)}`);
  if (!args.includes('--no-doc')) {
    const old = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
    const i = old.indexOf(MARKERS.start);
    const j = old.indexOf(MARKERS.end);
    const previous = i !== -1 && j > i ? old.slice(i + MARKERS.start.length, j).split('\n### ').slice(1, 5).map((s) => `### ${s.trim()}`) : [];
    const run = [
      `### ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}`,
      '',
      `1-minute load average ${loadAtStart.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end (the machine is shared; above ${m.cores} the figures are inflated).`
        + (args.includes('--reuse') ? ' Databases of an earlier run (`--reuse`): "index s" is from that run.' : ''),
      '',
      table(results),
      ...(million === '' ? [] : ['', million]),
    ].join('\n');
    writeSection(DOC, MARKERS, [HEADER, run, ...previous].join('\n\n'));
    console.log(`search-bench: wrote ${path.relative(process.cwd(), DOC)}`);
  }
}

const HEADER = `## Search (\`npm run bench:search\`)

Generated pages: title 8 words, 3 headings of 4, description 20, body 600 words drawn from a Zipf (s = 1)
vocabulary of 60,000 generated words, ~0.5 % identifiers (\`a_b\`, \`a-b\`), 500 hosts. FTS5 holds title, headings,
description and body; the in-memory title index (MiniSearch) holds title, headings and URL words. "index s": storing the pages
through \`pageQueries().upsertPage\` in transactions of 1000 (FTS5 kept in sync by triggers). "ready": from
\`SearchService.start()\` to the title index built, in a fresh server process; "max loop block": longest event-loop
stall meanwhile. Queries: 200 of 1-3 words taken from random pages (not among the 100 most common words; the last
word gets the API's automatic prefix), and 200 suggest prefixes of 2-6 letters; two passes each. "plain FTS5": the
same words ANDed, \`ORDER BY bm25 LIMIT 10\` with \`snippet()\`, nothing else, in a process of its own. Targets at
100k: search p50 ≤ 10 ms, p99 ≤ 50 ms; suggest p99 ≤ 20 ms; RSS ≤ 400 MB; ready ≤ 5 s.`;

await main();
