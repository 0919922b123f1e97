/**
 * Stored text of documents: a PDF read as the crawler reads it (its extraction thread, then the page it
 * becomes) is offered by GET /api/pages like any page, its pages' text in order; one sent with
 * `X-Robots-Tag: noarchive` is searchable but its stored text is refused, as for a page.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../../db/open.ts';
import { pageQueries } from '../../db/pages.ts';
import { extractPdf } from '../../crawler/extract/pdf-runner.ts';
import { pdfPage } from '../../crawler/extract/pdf-document.ts';
import { makePage } from '../../test-support/test-corpus.ts';
import { textPdf } from '../../test-support/pdf-files.ts';
import { createTestApp } from '../test-app.ts';

describe('GET /api/pages for documents', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  const get = (url: string) => t.app.inject({ method: 'GET', url: `/api/pages?url=${encodeURIComponent(url)}` });

  before(async () => {
    t = await createTestApp();
    const pdf = await textPdf({
      title: 'Field guide',
      pages: [{ lines: ['Owls of the north'] }, { lines: ['Совы и филины'] }],
    });
    const text = await extractPdf(pdf, 'https://docs.example/guide.pdf');
    const db = openDatabase(t.dataDir); // as the crawler primary writes pages
    const pages = pageQueries(db);
    for (const [url, header] of [
      ['https://docs.example/guide.pdf', undefined],
      ['https://docs.example/private.pdf', 'noarchive'],
    ] as const) {
      const page = pdfPage({ url, xRobotsTag: header, userAgent: 'LanternBot/0.1' }, text);
      pages.upsertPage(
        makePage(url, {
          contentType: 'application/pdf',
          title: page.title,
          body: page.text,
          headings: page.headings,
          noarchive: page.noarchive,
          fileType: 'pdf',
          pageStarts: page.pageStarts,
        }),
      );
    }
    db.close();
  });
  after(async () => {
    await t.close();
  });

  test("a PDF's stored text is its pages' text, in order, as plain text", async () => {
    const res = await get('https://docs.example/guide.pdf');
    assert.equal(res.statusCode, 200, res.body);
    const { page } = res.json();
    assert.deepEqual([page.title, page.text], ['Field guide', 'Owls of the north\n\nСовы и филины']);
  });

  test('X-Robots-Tag: noarchive on a PDF: searchable, but no stored text (403 no-archive)', async () => {
    const res = await get('https://docs.example/private.pdf');
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error, 'no-archive');
    const found = await t.app.inject({ method: 'GET', url: '/api/search?q=owls' });
    const results = found.json().results as Array<{ url: string; stored: boolean; fileType: string }>;
    assert.deepEqual(results.map((r) => [r.url, r.stored, r.fileType]).sort(), [
      ['https://docs.example/guide.pdf', true, 'pdf'],
      ['https://docs.example/private.pdf', false, 'pdf'],
    ]);
  });
});
