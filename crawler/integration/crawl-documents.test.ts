/**
 * Documents through the real cluster: PDFs (several pages, non-Latin text, a title or none), plain
 * text and Markdown are fetched like pages (same politeness, same size cap), their text stored and
 * searchable with its kind and a PDF's page starts; hostile PDFs (encrypted, truncated, nested deep)
 * and one over the 5 MiB body cap are marked failed with the reason while the workers stay up and the rest of the site is crawled;
 * X-Robots-Tag noarchive on a PDF is kept. Judged from the site's request log and the SQLite file.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { politenessReport, startTestWeb, type TestSite, type TestWeb } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { crawlWorkerPids } from '../../test-support/hostile-pages.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { encryptedPdf, nestedPdf, textPdf, truncatedPdf } from '../../test-support/pdf-files.ts';

const DELAY_MS = 150;
const PDF = { 'content-type': 'application/pdf' };

describe('documents through the real cluster', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let site: TestSite;
  let workersBefore: number[];

  const row = (path: string) =>
    crawler.db
      .prepare(
        'SELECT title, body, file_type AS fileType, page_starts AS pageStarts, noarchive, indexed FROM pages WHERE url = ?',
      )
      .get(site.url(path)) as
      | { title: string; body: string; fileType: string; pageStarts: string | null; noarchive: number; indexed: number }
      | undefined;
  const found = (word: string): string[] =>
    (
      crawler.db
        .prepare(
          'SELECT p.url FROM pages_fts JOIN pages p ON p.id = pages_fts.rowid WHERE pages_fts MATCH ? ORDER BY p.url',
        )
        .all(word) as Array<{ url: string }>
    ).map((r) => new URL(r.url).pathname);

  before(async () => {
    const manual = await textPdf({
      title: 'Telescope manual',
      pages: [
        { lines: ['Getting started', 'Привет, мир: assemble the tripod first.'], heading: true },
        { lines: ['Καλημέρα κόσμε', 'Collimation takes patience.'] },
        { lines: ['Eyepieces and zebrafinch filters'] },
      ],
    });
    const untitled = await textPdf({ pages: [{ lines: ['Field Notes 2026', 'owls at dusk'], heading: true }] });
    const links = [
      '/manual.pdf',
      '/untitled.pdf',
      '/secret.pdf',
      '/cut.pdf',
      '/deep.pdf',
      '/huge.pdf',
      '/private.pdf',
      '/notes.txt',
      '/docs/README.md',
      '/after.html',
    ];
    web = await startTestWeb([
      {
        robots: 'User-agent: *\nAllow: /\n',
        pages: {
          '/': `<!doctype html><title>Library</title><h1>Library</h1>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}`,
          '/manual.pdf': { body: manual, headers: PDF },
          '/untitled.pdf': { body: untitled, headers: PDF },
          '/secret.pdf': { body: encryptedPdf('classified telescope secrets', 'hunter2'), headers: PDF },
          '/cut.pdf': { body: truncatedPdf(manual), headers: PDF },
          '/deep.pdf': { body: nestedPdf(100_000), headers: PDF },
          '/huge.pdf': { body: Buffer.concat([manual, Buffer.alloc(6 * 1024 * 1024, 0x20)]), headers: PDF },
          '/private.pdf': {
            body: await textPdf({ title: 'Private', pages: [{ lines: ['archived nowhere'] }] }),
            headers: { ...PDF, 'x-robots-tag': 'noarchive' },
          },
          '/notes.txt': {
            body: 'Grocery notes\nbuy quinoa and saffron\n',
            headers: { 'content-type': 'text/plain; charset=utf-8' },
          },
          '/docs/README.md': {
            body: '# Stargazing guide\nSee [the map](map.md).\n',
            headers: { 'content-type': 'text/plain' },
          },
          '/docs/map.md': { body: '# Sky map\nOrion rises.\n', headers: { 'content-type': 'text/markdown' } },
          '/after.html': '<!doctype html><title>After</title><p>still crawled afterwards</p>',
        },
      },
    ]);
    site = web.sites[0];
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    crawler.addSeed(site.url('/'), { depth: 2 });
    // Workers start with the first due job (worker-lifecycle.ts), so the seed comes first.
    workersBefore = await waitFor(() => crawlWorkerPids(crawler).length === 2 && crawlWorkerPids(crawler), {
      timeoutMs: 30_000,
      message: 'two crawl workers up',
    });
    await crawler.waitIdle({ origin: site.origin, minDone: 12, timeoutMs: 120_000 });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test("a PDF is stored with its title, every page's text (Cyrillic and Greek included), its kind and its page starts, and is searchable", () => {
    const manual = row('/manual.pdf')!;
    assert.equal(manual.title, 'Telescope manual');
    assert.equal(manual.fileType, 'pdf');
    assert.equal(manual.indexed, 1);
    for (const words of [
      'Привет, мир: assemble the tripod first.',
      'Καλημέρα κόσμε',
      'Eyepieces and zebrafinch filters',
    ])
      assert.ok(manual.body.includes(words), words);
    const starts = JSON.parse(manual.pageStarts!) as number[];
    assert.equal(starts.length, 3);
    assert.ok(
      Array.from(manual.body).slice(starts[2]).join('').startsWith('Eyepieces'),
      'the third page starts where its start says',
    );
    assert.deepEqual(found('zebrafinch'), ['/manual.pdf']);
    assert.deepEqual(found('мир'), ['/manual.pdf']);
    assert.equal(
      row('/untitled.pdf')!.title,
      'Field Notes 2026',
      "no document title: the first page's heading-like line",
    );
  });

  test('hostile PDFs are marked failed with the reason; the workers stay up and the rest of the site is crawled', () => {
    const failed = (path: string) => crawler.frontier(site.url(path));
    assert.equal(failed('/secret.pdf')?.state, 'failed');
    assert.match(failed('/secret.pdf')!.lastError!, /^pdf: .*secret\.pdf is encrypted with a password/);
    assert.equal(failed('/cut.pdf')?.state, 'failed');
    assert.match(failed('/cut.pdf')!.lastError!, /truncated or damaged/);
    assert.equal(failed('/deep.pdf')?.state, 'failed');
    assert.match(failed('/deep.pdf')!.lastError!, /nests its objects too deeply/);
    assert.equal(failed('/huge.pdf')?.state, 'failed', 'a PDF over the body cap is not read');
    assert.match(failed('/huge.pdf')!.lastError!, /over the 5 MiB limit; not downloaded/);
    for (const path of ['/secret.pdf', '/cut.pdf', '/deep.pdf', '/huge.pdf'])
      assert.equal(row(path), undefined, `${path} is not stored`);
    assert.equal(found('classified').length, 0);
    assert.deepEqual(crawlWorkerPids(crawler), workersBefore, 'no worker died');
    assert.equal(crawler.frontier(site.url('/after.html'))?.state, 'done');
  });

  test('noarchive in X-Robots-Tag is kept for a PDF; plain text and Markdown are stored with their kind and Markdown links followed', () => {
    assert.equal(row('/private.pdf')!.noarchive, 1);
    assert.deepEqual([row('/notes.txt')!.fileType, row('/notes.txt')!.title], ['text', 'Grocery notes']);
    assert.deepEqual(found('saffron'), ['/notes.txt']);
    assert.deepEqual(
      [row('/docs/README.md')!.fileType, row('/docs/README.md')!.title],
      ['markdown', 'Stargazing guide'],
    );
    assert.deepEqual([row('/docs/map.md')!.fileType, row('/docs/map.md')!.title], ['markdown', 'Sky map']);
  });

  test('documents were fetched as politely as pages: one request at a time, each once', () => {
    const report = politenessReport(site.log, DELAY_MS);
    assert.deepEqual(
      report.violations.map((v) => `${v.prev.path} → ${v.next.path}: ${v.gapMs.toFixed(1)} ms`),
      [],
    );
    const paths = site.log.map((r) => r.path);
    assert.equal(paths.length, new Set(paths).size, 'no URL requested twice');
  });
});
