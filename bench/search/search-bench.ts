/**
 * `npm run bench:search` — search at 10k and 100k generated pages (1M with --million): time to
 * index, database size, server RSS/heap after start, time from start to ready, and p50/p99 latency
 * of 200 searches and 200 suggests (measured twice), beside plain FTS5 (bm25 + snippet, nothing
 * else) on the same database and queries. Prints the figures and adds them to docs/benchmarks.md.
 *
 * Each measured server runs in a child process of its own (this file, forked with `--child`), so
 * its RSS is that of a server that opened the database and built its title index, not of the
 * generator: one builds the title index from the pages table and writes its snapshot, the next
 * starts from that snapshot (as a restarted server does) and runs the queries. The corpus and the
 * queries are in search-corpus.ts. Flags: see USAGE (parsed by util.parseArgs; an unknown flag or a
 * bad value stops it with USAGE).
 */
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openDatabase, DB_FILE } from '../../db/open.ts';
import { addLinks, buildCorpus, workload } from './search-corpus.ts';
import { relevanceMarkdown, runRelevance } from './relevance.ts';
import type { RelevanceReport } from './relevance.ts';
import type { Workload } from './search-corpus.ts';
import { SearchService } from '../../server/search/search-service.ts';
import { TITLE_SNAPSHOT_FILE } from '../../server/search/title-index.ts';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';

const SELF = fileURLToPath(import.meta.url);
const DOC = path.join(path.dirname(SELF), '..', '..', 'docs', 'benchmarks.md');
const MARKERS = { start: '<!-- search:start -->', end: '<!-- search:end -->' } as const;

// ---------- measured children ----------

interface Latency {
  p50: number;
  p99: number;
  mean: number;
}
interface ChildReport {
  openMs: number;
  readyMs: number;
  maxLoopBlockMs: number;
  rssMB: number;
  heapMB: number;
  rssAfterMB: number;
  search: Latency[];
  suggest: Latency[];
  /** The same searches asked as questions ("how do I <words>"), which question search (question-lists.ts) also ranks. */
  questions: Latency[];
  medianTotal: number;
  restored: boolean;
  snapshotMB: number;
  /** From start() to the warm-up's end (SearchService.warmUp; the searches are timed after it), and RSS then. */
  warmUpMs: number;
  rssWarmMB: number;
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

/**
 * Child: plain FTS5 (mode 'plain'), or the search service over `dir` with its title-index snapshot
 * in `dir`: mode 'build' removes the snapshot first (the index is built from the pages table, then
 * a snapshot is written), mode 'restore' starts from that snapshot and runs the queries.
 */
async function child(mode: string, dir: string, work: Workload): Promise<ChildReport> {
  const t0 = performance.now();
  const db = openDatabase(dir, { readonly: mode === 'plain', migrate: false });
  const openMs = performance.now() - t0;
  const totals: number[] = [];
  if (mode === 'plain') {
    const stmt = db.prepare(`SELECT p.url, p.title, snippet(pages_fts, 3, '[', ']', '…', 28) AS s
      FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid WHERE pages_fts MATCH ? ORDER BY bm25(pages_fts) LIMIT 10`);
    const run = (q: string) =>
      stmt.all(
        q
          .split(/\s+/)
          .map((w) => `"${w}"`)
          .join(' AND '),
      );
    const rss = MB(process.memoryUsage().rss);
    const search = [latency(timeEach(work.searches, run)), latency(timeEach(work.searches, run))];
    return {
      openMs,
      readyMs: 0,
      maxLoopBlockMs: 0,
      rssMB: rss,
      heapMB: MB(process.memoryUsage().heapUsed),
      rssAfterMB: MB(process.memoryUsage().rss),
      search,
      suggest: [],
      questions: [],
      medianTotal: 0,
      restored: false,
      snapshotMB: 0,
      warmUpMs: 0,
      rssWarmMB: 0,
    };
  }
  const file = path.join(dir, TITLE_SNAPSHOT_FILE);
  if (mode === 'build') rmSync(file, { force: true });
  const service = new SearchService(db, { snapshot: { file, warn: (msg) => console.error(`  ${msg}`) } });
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const started = performance.now();
  service.start();
  // As server/main.ts does at a start (its searches are timed once it is done, below).
  const warm = mode === 'build' ? undefined : service.warmUp();
  while (!service.ready) await new Promise((resolve) => setTimeout(resolve, 5));
  const readyMs = performance.now() - started;
  loop.disable();
  const rssMB = MB(process.memoryUsage().rss);
  const heapMB = MB(process.memoryUsage().heapUsed);
  const base = {
    openMs,
    readyMs,
    maxLoopBlockMs: loop.max / 1e6,
    rssMB,
    heapMB,
    restored: service.restoredFromSnapshot,
    warmUpMs: 0,
    rssWarmMB: 0,
  };
  if (mode === 'build') {
    await service.writeSnapshot();
    service.close();
    const snapshotMB = existsSync(file) ? statSync(file).size / 1024 / 1024 : 0;
    return {
      ...base,
      rssAfterMB: MB(process.memoryUsage().rss),
      search: [],
      suggest: [],
      questions: [],
      medianTotal: 0,
      snapshotMB,
    };
  }
  await warm;
  base.warmUpMs = performance.now() - started;
  base.rssWarmMB = MB(process.memoryUsage().rss);
  const doSearch = (q: string) => totals.push(service.search(q, { limit: 10, offset: 0 }).total);
  const doSuggest = (q: string) => service.suggest(q, 8);
  const search = [latency(timeEach(work.searches, doSearch)), latency(timeEach(work.searches, doSearch))];
  const suggest = [latency(timeEach(work.suggests, doSuggest)), latency(timeEach(work.suggests, doSuggest))];
  const asked = work.searches.map((q) => `how do I ${q}`);
  const doAsk = (q: string) => service.search(q, { limit: 10, offset: 0 });
  const questions = [latency(timeEach(asked, doAsk)), latency(timeEach(asked, doAsk))];
  service.close();
  return {
    ...base,
    rssAfterMB: MB(process.memoryUsage().rss),
    search,
    suggest,
    questions,
    medianTotal: [...totals].sort((a, b) => a - b)[totals.length >> 1],
    snapshotMB: 0,
  };
}

function runChild(mode: string, dir: string, work: Workload): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const proc = fork(SELF, ['--child', mode, dir], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    proc.once('message', (m) => resolve(m as ChildReport));
    proc.once('error', reject);
    proc.once('exit', (code) => {
      if (code !== 0) reject(new Error(`search-bench: child ${mode} exited with ${code}`));
    });
    proc.send(work);
  });
}

// ---------- report ----------

const f1 = (n: number) => n.toFixed(n < 10 ? 2 : 1);
const lat = (l: Latency[]) => l.map((x) => `${f1(x.p50)} / ${f1(x.p99)}`).join(' · ');

interface SizeResult {
  n: number;
  indexS: number;
  dbMB: number;
  build: ChildReport;
  service: ChildReport;
  plain: ChildReport;
}

function table(results: SizeResult[]): string {
  const rows = [
    '| pages | index s | db MB | snapshot MB | ready ms: build · snapshot | max loop block ms: build · snapshot | RSS MB (heap) at ready: build · snapshot | warm-up s (RSS MB after) | search p50 / p99 ms (run 1 · run 2) | question search p50 / p99 ms | suggest p50 / p99 ms | plain FTS5 p50 / p99 ms | plain RSS MB | median total |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|---|---:|---:|',
  ];
  for (const r of results) {
    const b = r.build;
    const s = r.service;
    rows.push(
      `| ${r.n.toLocaleString('en')} | ${r.indexS.toFixed(1)} | ${r.dbMB} | ${b.snapshotMB.toFixed(0)} | ${b.readyMs.toFixed(0)} · ${s.readyMs.toFixed(0)}${s.restored ? '' : ' (not restored!)'} | ${b.maxLoopBlockMs.toFixed(0)} · ${s.maxLoopBlockMs.toFixed(0)} | ${b.rssMB} (${b.heapMB}) · ${s.rssMB} (${s.heapMB}) | ${(s.warmUpMs / 1000).toFixed(1)} (${s.rssWarmMB}) | ${lat(s.search)} | ${lat(s.questions)} | ${lat(s.suggest)} | ${lat(r.plain.search)} | ${r.plain.rssMB} | ${s.medianTotal} |`,
    );
  }
  return rows.join('\n');
}

/** The flags (printed with an error about them); `--child <mode> <dir>` is how the bench forks its measured servers. */
const USAGE = `Flags: --sizes 10000,100000  --million  --keep (leave the databases in the temp dir)
--reuse (measure databases a --keep run left, without indexing again; they are kept)  --no-doc (do not write
docs/benchmarks.md)  --no-relevance (skip the relevance part)  --relevance-only (only the relevance part)
--relevance-db <file> (keep the documentation's crawl in <file>; when it exists, search it without crawling).`;

/** The command line, checked: a bad flag throws `search-bench: <what was wrong>` and USAGE. */
function flags(): {
  child?: [mode: string, dir: string];
  sizes: number[];
  keep: boolean;
  reuse: boolean;
  doc: boolean;
  relevance: boolean;
  relevanceOnly: boolean;
  relevanceDb?: string;
} {
  const bad = (why: string): Error => new Error(`search-bench: ${why}\n${USAGE}`);
  // biome-ignore lint/suspicious/noImplicitAnyLet: set in the try below; its type is the one inferred there
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        child: { type: 'boolean', default: false },
        sizes: { type: 'string', default: '10000,100000' },
        million: { type: 'boolean', default: false },
        keep: { type: 'boolean', default: false },
        reuse: { type: 'boolean', default: false },
        'no-doc': { type: 'boolean', default: false },
        'no-relevance': { type: 'boolean', default: false },
        'relevance-only': { type: 'boolean', default: false },
        'relevance-db': { type: 'string' },
      },
    });
  } catch (err) {
    if (err instanceof TypeError) throw bad(err.message); // ERR_PARSE_ARGS_*: unknown flag, missing value
    throw err;
  }
  const { values, positionals } = parsed;
  if (values.child && positionals.length !== 2) throw bad('--child takes a mode and a directory');
  if (!values.child && positionals.length > 0) throw bad(`unexpected argument ${JSON.stringify(positionals[0])}`);
  const sizes = values.sizes.split(',').map(Number);
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 1))
    throw bad(`--sizes takes page counts separated by commas, not ${JSON.stringify(values.sizes)}`);
  if (values.million) sizes.push(1_000_000);
  if (values['no-relevance'] && values['relevance-only'])
    throw bad('--no-relevance and --relevance-only exclude each other');
  return {
    child: values.child ? [positionals[0], positionals[1]] : undefined,
    sizes,
    keep: values.keep,
    reuse: values.reuse,
    doc: !values['no-doc'],
    relevance: !values['no-relevance'],
    relevanceOnly: values['relevance-only'],
    relevanceDb: values['relevance-db'],
  };
}

async function main(): Promise<void> {
  const args = flags();
  if (args.child !== undefined) {
    const [mode, dir] = args.child;
    process.once('message', (work) => {
      child(mode, dir, work as Workload)
        .then((report) => process.send?.(report, () => process.exit(0)))
        .catch((err) => {
          console.error(err);
          process.exit(1);
        });
    });
    return;
  }
  const { sizes } = args;
  const m = machineInfo();
  const relevance: RelevanceReport | undefined = args.relevance ? await runRelevance(args.relevanceDb) : undefined;
  if (args.relevanceOnly) {
    if (relevance !== undefined && args.doc) writeRelevance(relevance, m);
    return;
  }
  const loadAtStart = os.loadavg()[0];
  console.log(
    `search-bench: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}; sizes ${sizes.join(', ')}`,
  );
  const results: SizeResult[] = [];
  for (const n of sizes) {
    const dir = path.join(os.tmpdir(), `lantern-search-bench-${n}`);
    const metaFile = path.join(dir, 'bench-meta.json');
    let indexS: number;
    const reused = args.reuse && existsSync(metaFile);
    if (reused) {
      indexS = (JSON.parse(readFileSync(metaFile, 'utf8')) as { indexS: number }).indexS;
      console.log(`\n${n.toLocaleString('en')} pages: reusing ${dir} (indexed earlier in ${indexS.toFixed(1)} s)`);
      openDatabase(dir).close(); // a database kept by an older Lantern gets the migrations since (the children do not migrate)
      const linked = openDatabase(dir, { readonly: true, migrate: false });
      const hasLinks = linked.prepare('SELECT 1 FROM link_targets LIMIT 1').get() !== undefined;
      linked.close();
      if (!hasLinks) console.log(`  added the links a crawl would have recorded in ${addLinks(dir, n).toFixed(1)} s`);
    } else {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      console.log(`\n${n.toLocaleString('en')} pages: generating and indexing…`);
      indexS = buildCorpus(dir, n);
      console.log(`  added the links a crawl would have recorded in ${addLinks(dir, n).toFixed(1)} s`);
      writeFileSync(metaFile, JSON.stringify({ n, indexS }));
    }
    const file = path.join(dir, DB_FILE);
    const dbMB = MB(statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0));
    console.log(`  indexed in ${indexS.toFixed(1)} s (${(n / indexS).toFixed(0)} pages/s); database ${dbMB} MB`);
    const work = workload(n);
    const build = await runChild('build', dir, work);
    console.log(
      `  built in ${build.readyMs.toFixed(0)} ms (event loop blocked at most ${build.maxLoopBlockMs.toFixed(0)} ms); RSS ${build.rssMB} MB, heap ${build.heapMB} MB; snapshot ${build.snapshotMB.toFixed(1)} MB`,
    );
    const service = await runChild('restore', dir, work);
    const plain = await runChild('plain', dir, work);
    const r: SizeResult = { n, indexS, dbMB, build, service, plain };
    results.push(r);
    console.log(
      `  ready from the snapshot in ${service.readyMs.toFixed(0)} ms${service.restored ? '' : ' (NOT restored)'} (event loop blocked at most ${service.maxLoopBlockMs.toFixed(0)} ms); RSS ${service.rssMB} MB, heap ${service.heapMB} MB; warmed up after ${(service.warmUpMs / 1000).toFixed(1)} s (RSS ${service.rssWarmMB} MB)`,
    );
    console.log(
      `  search p50/p99 ms: ${lat(service.search)}; as questions: ${lat(service.questions)}; suggest: ${lat(service.suggest)}; plain FTS5: ${lat(plain.search)} (RSS ${plain.rssMB} MB)`,
    );
    // A database kept for --reuse is never removed by the run that reused it (a 1M one took 20 min to make).
    if (!args.keep && !reused) rmSync(dir, { recursive: true, force: true });
  }
  const last = results[results.length - 1];
  let million = '';
  if (last !== undefined && last.n < 1_000_000) {
    const estimate = (last.indexS * (1_000_000 / last.n)) / 60;
    million = `1M pages (\`--million\`, not run) would take about ${estimate.toFixed(0)} min to index at this run's rate, and ~${((last.dbMB * 1_000_000) / last.n / 1024).toFixed(1)} GB of disk.`;
    console.log(`\n${million}`);
  }
  console.log(`\n${table(results)}`);
  if (args.doc) {
    const old = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
    const i = old.indexOf(MARKERS.start);
    const j = old.indexOf(MARKERS.end);
    const previous =
      i !== -1 && j > i
        ? old
            .slice(i + MARKERS.start.length, j)
            .split('\n### ')
            .slice(1, 5)
            .map((s) => `### ${s.trim()}`)
        : [];
    const run = [
      `### ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}`,
      '',
      `1-minute load average ${loadAtStart.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end (the machine is shared; above ${m.cores} the figures are inflated).` +
        (args.reuse ? ' Databases of an earlier run (`--reuse`): "index s" is from that run.' : ''),
      '',
      table(results),
      ...(million === '' ? [] : ['', million]),
      ...(relevance === undefined
        ? []
        : ['', '#### Relevance (Python and Git documentation)', '', relevanceMarkdown(relevance)]),
    ].join('\n');
    writeSection(DOC, MARKERS, [HEADER, run, ...previous].join('\n\n'));
    console.log(`search-bench: wrote ${path.relative(process.cwd(), DOC)}`);
  }
}

/** Writes only the relevance figures (`--relevance-only`) as a run of their own in the search section. */
function writeRelevance(relevance: RelevanceReport, m: ReturnType<typeof machineInfo>): void {
  const old = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '';
  const i = old.indexOf(MARKERS.start);
  const j = old.indexOf(MARKERS.end);
  const previous =
    i !== -1 && j > i
      ? old
          .slice(i + MARKERS.start.length, j)
          .split('\n### ')
          .slice(1, 5)
          .map((s) => `### ${s.trim()}`)
      : [];
  const run = [
    `### ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node} (relevance only)`,
    '',
    relevanceMarkdown(relevance),
  ].join('\n');
  writeSection(DOC, MARKERS, [HEADER, run, ...previous].join('\n\n'));
}

const HEADER = `## Search (\`npm run bench:search\`)

Generated pages: title 8 words, 3 headings of 4, description 20, body 600 words drawn from a Zipf (s = 1)
vocabulary of 60,000 generated words, ~0.5 % identifiers (\`a_b\`, \`a-b\`), 500 hosts; each page links to 5 others with
3 words of the target's title as anchor text (one target in five among the first 1000 pages), and one page in 50 is mostly
links (link density 0.9), so the link signals cost what they would after a crawl. FTS5 holds title, headings,
description and body; the in-memory title index (MiniSearch) holds title, headings and URL words. "index s":
storing the pages through \`pageQueries().upsertPage\` in transactions of 1000 (each page's FTS5 entries written with it).
"ready": from \`SearchService.start()\` to the title index built, in a fresh server process: "build" without a
snapshot file (every page indexed from the pages table; that process then writes the snapshot, "snapshot MB"),
"snapshot" in the next process, which restores that file and catches up from its cursor (what a restarted server
does). "max loop block": longest event-loop stall meanwhile. "warm-up s": from start to the end of the warm-up a
server starts with the title index (\`SearchService.warmUp\`: the full-text index read once in a thread, its 1000 most common words'
commonness decided, then the search connection's own page cache filled with what every search reads, cache-prime.ts), and RSS then; the queries are timed after it. The queries run in the "snapshot" process: 200 of 1-3
words taken from random pages (not among the 100 most common words; the last word gets the API's automatic
prefix), the same 200 asked as questions ("how do I" and the words: question search, question-lists.ts, ranks them too),
and 200 suggest prefixes of 2-6 letters; two passes each. "plain FTS5": the same words ANDed,
\`ORDER BY bm25 LIMIT 10\` with \`snippet()\`, nothing else, in a process of its own. Targets at 100k: search
p50 ≤ 10 ms, p99 ≤ 50 ms; suggest p99 ≤ 20 ms; RSS ≤ 400 MB; ready ≤ 5 s. At 1M (issue 30): search p99 ≤ 100 ms,
RSS ≤ 1 GB.
Relevance: the Python 3.11, Git 2.39 and Debian documentation (Debian's \`python3-doc\`, \`git-doc\`, \`debian-reference-en\`
and \`debian-faq\`) served by the loopback test web and crawled by the real crawler, then the keyword queries of
\`bench/search/relevance-queries.ts\` (A, B: two sets of 22) and the questions of \`questions-tuning.ts\` (Q-tune, 30) and
\`questions-held-out.ts\` (Q-held, 30, written first and never tuned on; its misses are not printed), each with the page a
person means: MRR over the top 10 and the share found in the top 3, for plain FTS5 (bm25 with every column weighted 1,
the words ANDed or ORed), the ranking without link signals ("before"), with each signal, and with question search.
\`--relevance-only\` runs just that part; \`--relevance-db <file>\` keeps the crawl and searches it again without crawling.
1M pages are opt-in (\`npm run bench:search -- --million --keep\`): generating and storing them took 20 min
(902 s of it in the store's transactions) and 7 GB of disk in /tmp; \`--reuse\` measures a kept database again in
about 2 minutes, and keeps it (it migrates it first: a copy, with \`TMPDIR\`, keeps the original for older code).`;

await main();
