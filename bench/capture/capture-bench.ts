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
      const res = await t.app.inject({ method: 'POST', url: '/api/seeds/import', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ file }) });
      totalMs.push(performance.now() - began);
      const body = res.json() as { created: number };
      if (res.statusCode !== 200 || body.created !== BOOKMARKS) throw new Error(`bench: the import answered ${res.statusCode} ${res.body.slice(0, 200)}`);
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
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 10);
  const started = performance.now();
  const text = await extractPdf(data, 'bench.pdf', { ...PDF_LIMITS, timeoutMs: 600_000 });
  const ms = performance.now() - started;
  clearInterval(sampler);
  return { ms, peakGrowth: peak - base, pages: text.pages.length, chars: text.pages.reduce((n, p) => n + p.length, 0) };
}

const file = largeBookmarkExport(BOOKMARKS);
console.log(`bench:capture: importing ${BOOKMARKS} bookmarks (${mib(file.length)} MiB, Chrome format with favicons), ${RUNS} runs…`);
const imports = await importRuns(file);
console.log(`  import: median ${median(imports.totalMs).toFixed(0)} ms (runs ${imports.totalMs.map((m) => m.toFixed(0)).join(', ')}); parse and judge alone ${median(imports.planMs).toFixed(0)} ms`);

const tiny = simplePdf('one line');
const startup: number[] = [];
for (let i = 0; i < RUNS; i++) startup.push((await measurePdf(tiny)).ms);
console.log(`  PDF thread, one-line document: median ${median(startup).toFixed(0)} ms (start, load pdf.js, read)`);

console.log(`bench:capture: making a ${PDF_PAGES}-page PDF…`);
const big = await longPdf(PDF_PAGES);
const pdf = await measurePdf(big);
const perPageMs = (pdf.ms - median(startup)) / pdf.pages;
console.log(`  PDF ${PDF_PAGES} pages (${mib(big.length)} MiB, ${pdf.chars} characters): ${pdf.ms.toFixed(0)} ms, ${perPageMs.toFixed(1)} ms per page after the thread's start; RSS grew ${mib(pdf.peakGrowth)} MiB at most (${(pdf.peakGrowth / pdf.pages / 1024).toFixed(0)} KiB per page)`);

const m = machineInfo();
const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
writeSection(DOC, MARKERS, `## Personal capture (\`npm run bench:capture\`)

### ${when} UTC — ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node} (load average ${load} while it ran)

| what | figure |
|---|---|
| import of ${BOOKMARKS} bookmarks (${mib(file.length)} MiB Chrome export with favicons; \`POST /api/seeds/import\` through the app: parse, judge every URL, store seeds and labels in one transaction) | median ${median(imports.totalMs).toFixed(0)} ms of ${RUNS} runs (${imports.totalMs.map((x) => x.toFixed(0)).join(', ')} ms) |
| of which parsing and judging the file | median ${median(imports.planMs).toFixed(0)} ms |
| PDF extraction thread, a one-line document (thread start, pdf.js load, read) | median ${median(startup).toFixed(0)} ms |
| PDF of ${PDF_PAGES} pages (${mib(big.length)} MiB, ${pdf.chars} characters) | ${pdf.ms.toFixed(0)} ms in all, **${perPageMs.toFixed(1)} ms per page** past the thread's start |
| memory while reading it (the worker process's RSS growth, thread included) | ${mib(pdf.peakGrowth)} MiB at most, about ${(pdf.peakGrowth / pdf.pages / 1024).toFixed(0)} KiB per page |

Bounds that hold whatever a PDF holds (crawler/extract/pdf-runner.ts, PDF_LIMITS): ${PDF_LIMITS.timeoutMs / 1000} s per document,
a ${PDF_LIMITS.heapMb} MiB heap for the thread, ${PDF_LIMITS.memoryMb} MiB of RSS growth (buffers live outside the heap), at most
${PDF_LIMITS.maxPages} pages and ${PDF_LIMITS.maxChars.toLocaleString('en')} characters; bodies are capped at 5 MiB like every page. One document is read
at a time per crawler worker while its other fetches go on. The test of the bomb (crawler/extract/pdf-runner.test.ts) prints
its own figures: stopped by the memory watch within about 100 MiB of growth under a 96 MiB limit.`);
console.log(`bench:capture: wrote ${path.relative(process.cwd(), DOC)}`);
