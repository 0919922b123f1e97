/**
 * `npm run bench:capture`: how long importing a 10,000-bookmark export takes (the real route, through
 * app.inject, on a real database: parse, judge, store), and what a PDF costs to read (time and memory
 * per page for a large document, and the fixed cost of the extraction thread). Prints the figures and
 * writes the capture section of docs/benchmarks.md.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestApp } from '../../server/test-app.ts';
import { planImport } from '../../server/capture/import-plan.ts';
import { extractPdf, PDF_LIMITS } from '../../crawler/extract/pdf-runner.ts';
import { largeBookmarkExport } from '../../test-support/bookmark-exports.ts';
import { longPdf, simplePdf } from '../../test-support/pdf-files.ts';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';
import { seedLabelQueries } from '../../db/seed-labels.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';
import { politenessReport } from '../../test-support/politeness.ts';
import { startTestWeb } from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';

const MARKERS = { start: '<!-- capture:start -->', end: '<!-- capture:end -->' } as const;
const DOC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'benchmarks.md');
const BOOKMARKS = 10_000;
const RUNS = 3;
const PDF_PAGES = Number(process.env.BENCH_PDF_PAGES ?? 400);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

async function importRuns(file: string): Promise<{ totalMs: number[]; planMs: number[] }> {
  const totalMs: number[] = [];
  const planMs: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    planImport(file, { allowPrivate: false });
    planMs.push(performance.now() - started);
    const t = await createTestApp();
    try {
      const began = performance.now();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/seeds/import',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ file }),
      });
      totalMs.push(performance.now() - began);
      const body = res.json() as { created: number };
      if (res.statusCode !== 200 || body.created !== BOOKMARKS)
        throw new Error(`bench: the import answered ${res.statusCode} ${res.body.slice(0, 200)}`);
    } finally {
      await t.close();
    }
  }
  return { totalMs, planMs };
}

/** Reads a PDF while sampling the process's RSS (the extraction thread's memory included). */
async function measurePdf(data: Buffer): Promise<{ ms: number; peakGrowth: number; pages: number; chars: number }> {
  const base = process.memoryUsage.rss();
  let peak = base;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const started = performance.now();
  const text = await extractPdf(data, 'bench.pdf', { ...PDF_LIMITS, timeoutMs: 600_000 });
  const ms = performance.now() - started;
  clearInterval(sampler);
  return { ms, peakGrowth: peak - base, pages: text.pages.length, chars: text.pages.reduce((n, p) => n + p.length, 0) };
}

const CRAWL_SITES = 10;
const CRAWL_DELAY_MS = 50;
const CRAWL_WATCH_MS = 20_000;

/**
 * The real crawler takes up an import of BOOKMARKS seeds on CRAWL_SITES loopback sites: how long until
 * the primary has queued them all, then how many pages it fetched in CRAWL_WATCH_MS, and the politeness
 * of it from the sites' own logs.
 */
async function crawlImported(): Promise<{ queuedMs: number; fetched: number; violations: number; minGapMs: number }> {
  const web = await startTestWeb(
    Array.from({ length: CRAWL_SITES }, () => ({
      robots: 'User-agent: *\nAllow: /\n',
      pages: {},
      fallback: { body: '<title>p</title><p>a bookmarked page</p>' },
    })),
  );
  const crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(CRAWL_DELAY_MS) });
  try {
    await waitFor(() => crawler.messages.some((m) => m.type === 'started'), {
      timeoutMs: 60_000,
      message: 'crawler started',
    });
    const lines = Array.from({ length: BOOKMARKS }, (_, i) => web.sites[i % CRAWL_SITES].url(`/page/${i}`));
    const plan = planImport(lines.join('\n'), { allowPrivate: true });
    const started = performance.now();
    seedLabelQueries(crawler.db).importSeeds(plan.seeds, { depth: 0, scope: 'host' }, Date.now());
    crawler.addSeed(web.sites[0].url('/'), { depth: 0 }); // as the server does after an import: tell the primary
    const count = crawler.db.prepare('SELECT count(*) AS n FROM frontier');
    await waitFor(() => (count.get() as { n: number }).n > BOOKMARKS, {
      timeoutMs: 300_000,
      intervalMs: 100,
      message: 'imported seeds queued',
    });
    const queuedMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, CRAWL_WATCH_MS));
    const fetched = (
      crawler.db.prepare("SELECT count(*) AS n FROM frontier WHERE state = 'done'").get() as { n: number }
    ).n;
    let violations = 0;
    let minGapMs = Infinity;
    for (const site of web.sites) {
      const report = politenessReport(site.log, CRAWL_DELAY_MS);
      violations += report.violations.length;
      minGapMs = Math.min(minGapMs, report.minGapMs);
    }
    return { queuedMs, fetched, violations, minGapMs };
  } finally {
    await crawler.close();
    await web.close();
  }
}

const file = largeBookmarkExport(BOOKMARKS);
console.log(
  `bench:capture: importing ${BOOKMARKS} bookmarks (${mib(file.length)} MiB, Chrome format with favicons), ${RUNS} runs…`,
);
const imports = await importRuns(file);
console.log(
  `  import: median ${median(imports.totalMs).toFixed(0)} ms (runs ${imports.totalMs.map((m) => m.toFixed(0)).join(', ')}); parse and judge alone ${median(imports.planMs).toFixed(0)} ms`,
);

console.log(`bench:capture: the crawler takes up ${BOOKMARKS} imported seeds on ${CRAWL_SITES} loopback sites…`);
const crawl = await crawlImported();
console.log(
  `  queued by the primary after ${crawl.queuedMs.toFixed(0)} ms; ${crawl.fetched} fetched in the next ${CRAWL_WATCH_MS / 1000} s; politeness violations ${crawl.violations} (smallest gap ${crawl.minGapMs.toFixed(1)} ms, delay ${CRAWL_DELAY_MS} ms)`,
);

const tiny = simplePdf('one line');
const startup: number[] = [];
for (let i = 0; i < RUNS; i++) startup.push((await measurePdf(tiny)).ms);
console.log(`  PDF thread, one-line document: median ${median(startup).toFixed(0)} ms (start, load pdf.js, read)`);

console.log(`bench:capture: making a ${PDF_PAGES}-page PDF…`);
const big = await longPdf(PDF_PAGES);
const pdf = await measurePdf(big);
const perPageMs = (pdf.ms - median(startup)) / pdf.pages;
console.log(
  `  PDF ${PDF_PAGES} pages (${mib(big.length)} MiB, ${pdf.chars} characters): ${pdf.ms.toFixed(0)} ms, ${perPageMs.toFixed(1)} ms per page after the thread's start; RSS grew ${mib(pdf.peakGrowth)} MiB at most (${(pdf.peakGrowth / pdf.pages / 1024).toFixed(0)} KiB per page)`,
);

const m = machineInfo();
const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
writeSection(
  DOC,
  MARKERS,
  `## Personal capture (\`npm run bench:capture\`)

### ${when} UTC — ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node} (load average ${load} while it ran)

| what | figure |
|---|---|
| import of ${BOOKMARKS} bookmarks (${mib(file.length)} MiB Chrome export with favicons; \`POST /api/seeds/import\` through the app: parse, judge every URL, store seeds and labels in one transaction) | median ${median(imports.totalMs).toFixed(0)} ms of ${RUNS} runs (${imports.totalMs.map((x) => x.toFixed(0)).join(', ')} ms) |
| of which parsing and judging the file | median ${median(imports.planMs).toFixed(0)} ms |
| the crawler primary takes the ${BOOKMARKS} new seeds up (real cluster, 2 workers, ${CRAWL_SITES} loopback sites, delay ${CRAWL_DELAY_MS} ms): all queued after | ${crawl.queuedMs.toFixed(0)} ms |
| then fetched in ${CRAWL_WATCH_MS / 1000} s, and politeness from the sites' own logs | ${crawl.fetched} pages; **${crawl.violations} violations** (smallest gap ${crawl.minGapMs.toFixed(1)} ms) |
| PDF extraction thread, a one-line document (thread start, pdf.js load, read) | median ${median(startup).toFixed(0)} ms |
| PDF of ${PDF_PAGES} pages (${mib(big.length)} MiB, ${pdf.chars} characters) | ${pdf.ms.toFixed(0)} ms in all, **${perPageMs.toFixed(1)} ms per page** past the thread's start |
| memory while reading it (the worker process's RSS growth, thread included) | ${mib(pdf.peakGrowth)} MiB at most, about ${(pdf.peakGrowth / pdf.pages / 1024).toFixed(0)} KiB per page |

Bounds that hold whatever a PDF holds (crawler/extract/pdf-runner.ts, PDF_LIMITS): ${PDF_LIMITS.timeoutMs / 1000} s per document,
a ${PDF_LIMITS.heapMb} MiB heap for the thread, ${PDF_LIMITS.memoryMb} MiB of RSS growth (buffers live outside the heap), at most
${PDF_LIMITS.maxPages} pages and ${PDF_LIMITS.maxChars.toLocaleString('en')} characters; bodies are capped at 5 MiB like every page. One document is read
at a time per crawler worker while its other fetches go on. The test of the bomb (crawler/extract/pdf-runner.test.ts) prints
its own figures: stopped by the memory watch within about 100 MiB of growth under a 96 MiB limit.`,
);
console.log(`bench:capture: wrote ${path.relative(process.cwd(), DOC)}`);
