/**
 * `node --import tsx bench/search/search-profile.ts <dir> [--questions] [--pragma name=value]...` —
 * which searches of bench:search's workload are the slow ones, and where their time goes. Opens the
 * database a `bench:search --keep` run left in <dir> (read-only, not migrated) with the title index
 * from a copy of its snapshot, starts it as server/main.ts does (with its warm-up, awaited), runs the
 * workload's 200 searches twice (the first pass meets what a restarted server meets; the second, what
 * a running one has warm), and prints each pass's p50/p99 (wall and CPU time), each pass's time per
 * method summed over its searches (first against second), the searches the first pass paid most for
 * over the second, and the second pass's 15 slowest searches, each with the time spent in each
 * method (those over 2 ms) of FtsSearch, TitleIndex, CandidateLists, QuestionLists and the
 * service's other parts. `--pragma` sets a pragma on the service's connection before it starts (to
 * try a setting). It times the methods by wrapping their prototypes: a profile, not a benchmark.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { openDatabase } from '../../db/open.ts';
import { workload } from './search-corpus.ts';
import { SearchService } from '../../server/search/search-service.ts';
import { FtsSearch } from '../../server/search/fts-search.ts';
import { TitleIndex, TITLE_SNAPSHOT_FILE } from '../../server/search/title-index.ts';
import { QuestionLists } from '../../server/search/question-lists.ts';
import { CandidateLists } from '../../server/search/candidate-lists.ts';
import { CommonTerms } from '../../server/search/common-terms.ts';
import { FtsPrefixes } from '../../server/search/fts-prefixes.ts';
import { FtsStems } from '../../server/search/fts-stems.ts';
import { QuerySpelling } from '../../server/search/query-spelling.ts';
import { ResultShaper } from '../../server/search/result-shape.ts';
import { CaptureSearch } from '../../server/search/capture-filters.ts';

const USAGE =
  'Usage: node --import tsx bench/search/search-profile.ts <dir of a bench:search --keep run> [--questions] [--pragma name=value]...';

const spent = new Map<string, number>();
const spentCpu = new Map<string, number>();
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** Wraps every method of `cls` so that its wall time adds to `spent`, its CPU time to `spentCpu`, under `name.method`. */
function timeMethods(cls: { prototype: object }, name: string): void {
  const proto = cls.prototype as Record<string, unknown>;
  for (const key of Object.getOwnPropertyNames(proto)) {
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === 'constructor' || d === undefined || typeof d.value !== 'function') continue;
    const f = d.value as (...a: unknown[]) => unknown;
    proto[key] = function (this: unknown, ...a: unknown[]) {
      const t = performance.now();
      const c = cpuMs();
      try {
        return f.apply(this, a);
      } finally {
        spent.set(`${name}.${key}`, (spent.get(`${name}.${key}`) ?? 0) + performance.now() - t);
        spentCpu.set(`${name}.${key}`, (spentCpu.get(`${name}.${key}`) ?? 0) + cpuMs() - c);
      }
    };
  }
}

const [dir, ...rest] = process.argv.slice(2);
const pragmas: string[] = [];
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === '--questions') continue;
  if (rest[i] === '--pragma' && /^\w+=[\w-]+$/.test(rest[i + 1] ?? '')) pragmas.push(rest[++i]);
  else throw new Error(`search-profile: unexpected argument ${JSON.stringify(rest[i])}\n${USAGE}`);
}
if (dir === undefined) throw new Error(`search-profile: expected a directory\n${USAGE}`);
const metaFile = path.join(dir, 'bench-meta.json');
if (!existsSync(metaFile))
  throw new Error(`search-profile: ${dir} has no bench-meta.json (keep a run with --keep)\n${USAGE}`);
const { n } = JSON.parse(readFileSync(metaFile, 'utf8')) as { n: number };

timeMethods(FtsSearch, 'fts');
timeMethods(TitleIndex, 'title');
timeMethods(CandidateLists, 'lists');
timeMethods(QuestionLists, 'questions');
timeMethods(CommonTerms, 'common');
timeMethods(FtsPrefixes, 'prefixes');
timeMethods(FtsStems, 'stems');
timeMethods(QuerySpelling, 'spelling');
timeMethods(ResultShaper, 'shape');
timeMethods(CaptureSearch, 'capture');

// The service writes its snapshot when it closes: it gets a copy, so the kept directory is only read.
const scratch = mkdtempSync(path.join(os.tmpdir(), 'lantern-search-profile-'));
const snapshot = path.join(scratch, TITLE_SNAPSHOT_FILE);
if (existsSync(path.join(dir, TITLE_SNAPSHOT_FILE))) copyFileSync(path.join(dir, TITLE_SNAPSHOT_FILE), snapshot);
const db = openDatabase(dir, { readonly: true, migrate: false });
for (const p of pragmas) console.log(`pragma ${p}: ${JSON.stringify(db.pragma(p))}`);
const service = new SearchService(db, { snapshot: { file: snapshot, warn: (m) => console.error(`  ${m}`) } });
service.start();
const warm = service.warmUp(); // as server/main.ts does at a start
while (!service.ready) await new Promise((resolve) => setTimeout(resolve, 5));
const warmed = await warm;
console.log(`warm-up: ${JSON.stringify(warmed)}; RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`);
const work = workload(n);
const queries = rest.includes('--questions') ? work.searches.map((q) => `how do I ${q}`) : work.searches;
type Row = {
  q: string;
  ms: number;
  cpu: number;
  total: number;
  spent: Map<string, number>;
  spentCpu: Map<string, number>;
};
const passes: Row[][] = [[], []];
/** Bytes this process read through system calls and from the disk itself (Linux), and its page faults. */
const io = () => {
  const proc = readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(proc)?.[1] ?? 0);
  const r = process.resourceUsage();
  return [field('rchar'), field('read_bytes'), r.majorPageFault, r.minorPageFault];
};
const reads: string[] = [];
// Garbage collections during a pass (a pause lands on whichever search is running): count and ms by kind.
let gcs = new Map<string, [number, number]>();
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind =
      (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR ? 'major' : 'other';
    const [n, ms] = gcs.get(kind) ?? [0, 0];
    gcs.set(kind, [n + 1, ms + e.duration]);
  }
}).observe({ entryTypes: ['gc'] });
for (const rows of passes) {
  gcs = new Map();
  const before = io();
  for (const q of queries) {
    spent.clear();
    spentCpu.clear();
    const c0 = process.cpuUsage();
    const t = performance.now();
    const r = service.search(q, { limit: 10, offset: 0 });
    const ms = performance.now() - t;
    const c = process.cpuUsage(c0);
    rows.push({
      q,
      ms,
      cpu: (c.user + c.system) / 1000,
      total: r.total,
      spent: new Map(spent),
      spentCpu: new Map(spentCpu),
    });
  }
  await new Promise((resolve) => setImmediate(resolve)); // the pass's GC entries are delivered
  const d = io().map((x, i) => x - before[i]);
  reads.push(
    `read ${Math.round(d[0] / 2 ** 20)} MB by system calls, ${Math.round(d[1] / 2 ** 20)} MB from the disk; page faults ${d[2]} major, ${d[3]} minor; GC ${[...gcs].map(([k, [n, ms]]) => `${k} ${n} (${ms.toFixed(0)} ms)`).join(', ')}`,
  );
}
service.close();
db.close();
rmSync(scratch, { recursive: true, force: true });

const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.ceil(q * xs.length) - 1];
const f = (x: number) => x.toFixed(1);
const parts = (m: Map<string, number>, min: number) =>
  [...m]
    .filter(([, v]) => v > min)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${f(v)}`)
    .join(', ');
console.log(
  `${n.toLocaleString('en')} pages, ${queries.length} searches a pass, 1-minute load ${os.loadavg()[0].toFixed(1)}; RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`,
);
for (const [i, rows] of passes.entries()) {
  const ms = rows.map((r) => r.ms);
  const cpu = rows.map((r) => r.cpu);
  console.log(
    `pass ${i + 1}: p50 / p99 ms ${f(at(ms, 0.5))} / ${f(at(ms, 0.99))}, CPU ${f(at(cpu, 0.5))} / ${f(at(cpu, 0.99))}, sum ${f(ms.reduce((a, b) => a + b, 0))} ms; ${reads[i]}`,
  );
}
const summed = (pick: (r: Row) => Map<string, number>) =>
  passes.map((rows) => {
    const m = new Map<string, number>();
    for (const r of rows) for (const [k, v] of pick(r)) m.set(k, (m.get(k) ?? 0) + v);
    return m;
  });
const sums = summed((r) => r.spent);
const cpus = summed((r) => r.spentCpu);
const get = (m: Map<string, number>, k: string) => m.get(k) ?? 0;
console.log(
  '\nms per method over the pass, pass 1 / pass 2, wall (CPU) (those over 20 ms in either), by CPU difference:',
);
for (const k of [...new Set([...sums[0].keys(), ...sums[1].keys()])]
  .filter((k) => get(sums[0], k) > 20 || get(sums[1], k) > 20)
  .sort((a, b) => get(cpus[1], a) - get(cpus[0], a) - (get(cpus[1], b) - get(cpus[0], b))))
  console.log(`  ${k}: ${f(get(sums[0], k))} (${f(get(cpus[0], k))}) / ${f(get(sums[1], k))} (${f(get(cpus[1], k))})`);
console.log('\nthe 15 searches the first pass paid most CPU for over the second (pass 1 · pass 2, CPU ms):');
for (const [i, r] of passes[0]
  .map((r, i) => [i, r] as const)
  .sort((a, b) => b[1].cpu - passes[1][b[0]].cpu - (a[1].cpu - passes[1][a[0]].cpu))
  .slice(0, 15)) {
  const r2 = passes[1][i];
  console.log(
    `${f(r.cpu)} · ${f(r2.cpu)} ms ${JSON.stringify(r.q)}: ${parts(r.spentCpu, 2)} · ${parts(r2.spentCpu, 2)}`,
  );
}
console.log('\nthe 15 slowest searches of the second pass:');
for (const r of [...passes[1]].sort((a, b) => b.ms - a.ms).slice(0, 15))
  console.log(
    `${f(r.ms)} ms (CPU ${f(r.cpu)}) ${JSON.stringify(r.q)} total ${r.total}: ${parts(r.spent, 2)}; CPU: ${parts(r.spentCpu, 2)}`,
  );
