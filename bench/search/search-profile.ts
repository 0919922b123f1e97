/**
 * `node --import tsx bench/search/search-profile.ts <dir> [--questions]` — which searches of
 * bench:search's workload are the slow ones, and where their time goes. Opens the database a
 * `bench:search --keep` run left in <dir> (read-only, not migrated) with the title index from a copy
 * of its snapshot, starts it as server/main.ts does (with its warm-up, awaited), runs the workload's
 * 200 searches twice (the first pass warms what a running server has warm), and prints the second pass's p50/p99 (wall and CPU time) and its 15 slowest searches,
 * each with the time spent in each FtsSearch, TitleIndex, CandidateLists and QuestionLists method
 * (those over 2 ms). It times the methods by wrapping their prototypes: a profile, not a benchmark.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../db/open.ts';
import { workload } from './search-corpus.ts';
import { SearchService } from '../../server/search/search-service.ts';
import { FtsSearch } from '../../server/search/fts-search.ts';
import { TitleIndex, TITLE_SNAPSHOT_FILE } from '../../server/search/title-index.ts';
import { QuestionLists } from '../../server/search/question-lists.ts';
import { CandidateLists } from '../../server/search/candidate-lists.ts';

const USAGE =
  'Usage: node --import tsx bench/search/search-profile.ts <dir of a bench:search --keep run> [--questions]';

const spent = new Map<string, number>();

/** Wraps every method of `cls` so that its time adds to `spent` under `name.method`. */
function timeMethods(cls: { prototype: object }, name: string): void {
  const proto = cls.prototype as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === 'constructor' || d === undefined || typeof d.value !== 'function') continue;
    const f = d.value as (...a: unknown[]) => unknown;
    proto[key] = function (this: unknown, ...a: unknown[]) {
      const t = performance.now();
      try {
        return f.apply(this, a);
      } finally {
        spent.set(`${name}.${key}`, (spent.get(`${name}.${key}`) ?? 0) + performance.now() - t);
      }
    };
  }
}

const [dir, ...rest] = process.argv.slice(2);
if (dir === undefined || rest.some((a) => a !== '--questions'))
  throw new Error(`search-profile: expected a directory and at most --questions\n${USAGE}`);
const metaFile = path.join(dir, 'bench-meta.json');
if (!existsSync(metaFile))
  throw new Error(`search-profile: ${dir} has no bench-meta.json (keep a run with --keep)\n${USAGE}`);
const { n } = JSON.parse(readFileSync(metaFile, 'utf8')) as { n: number };

timeMethods(FtsSearch, 'fts');
timeMethods(TitleIndex, 'title');
timeMethods(CandidateLists, 'lists');
timeMethods(QuestionLists, 'questions');

// The service writes its snapshot when it closes: it gets a copy, so the kept directory is only read.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'lantern-search-profile-'));
const snapshot = path.join(scratch, TITLE_SNAPSHOT_FILE);
if (existsSync(path.join(dir, TITLE_SNAPSHOT_FILE))) copyFileSync(path.join(dir, TITLE_SNAPSHOT_FILE), snapshot);
const db = openDatabase(dir, { readonly: true, migrate: false });
const service = new SearchService(db, { snapshot: { file: snapshot, warn: (m) => console.error(`  ${m}`) } });
service.start();
const warm = service.warmUp(); // as server/main.ts does at a start
while (!service.ready) await new Promise((resolve) => setTimeout(resolve, 5));
const warmed = await warm;
console.log(`warm-up: ${JSON.stringify(warmed)}; RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`);
const work = workload(n);
const queries = rest.includes('--questions') ? work.searches.map((q) => `how do I ${q}`) : work.searches;
const rows: Array<{ q: string; ms: number; cpu: number; total: number; parts: string }> = [];
for (let pass = 0; pass < 2; pass++) {
  for (const q of queries) {
    spent.clear();
    const c0 = process.cpuUsage();
    const t = performance.now();
    const r = service.search(q, { limit: 10, offset: 0 });
    const ms = performance.now() - t;
    const c = process.cpuUsage(c0);
    if (pass === 0) continue;
    const parts = [...spent]
      .filter(([, v]) => v > 2)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(', ');
    rows.push({ q, ms, cpu: (c.user + c.system) / 1000, total: r.total, parts });
  }
}
service.close();
db.close();
rmSync(scratch, { recursive: true, force: true });

const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.ceil(q * xs.length) - 1];
const f = (x: number) => x.toFixed(1);
console.log(
  `${n.toLocaleString('en')} pages, ${rows.length} searches (2nd pass), 1-minute load ${os.loadavg()[0].toFixed(1)}: ` +
    `p50 / p99 ms ${f(
      at(
        rows.map((r) => r.ms),
        0.5,
      ),
    )} / ${f(
      at(
        rows.map((r) => r.ms),
        0.99,
      ),
    )}, ` +
    `CPU ${f(
      at(
        rows.map((r) => r.cpu),
        0.5,
      ),
    )} / ${f(
      at(
        rows.map((r) => r.cpu),
        0.99,
      ),
    )}; RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`,
);
for (const r of rows.sort((a, b) => b.ms - a.ms).slice(0, 15))
  console.log(`${f(r.ms)} ms (CPU ${f(r.cpu)}) ${JSON.stringify(r.q)} total ${r.total}: ${r.parts}`);
