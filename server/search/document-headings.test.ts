/**
 * Documents as first-class pages in search: a PDF stored as the crawler stores it (pdf-document.ts)
 * completes and ranks by its headings as a web page does, over a real database.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { pdfPage } from '../../crawler/extract/pdf-document.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { SearchService } from './search-service.ts';

const PDF_URL = 'http://r.test/R-intro.pdf';
const FILLER = 'Ordinary words about nothing in particular fill this line so the text has some length to it. ';

describe('a PDF heading', () => {
  const env = tempDatabase();
  let service: SearchService;
  before(async () => {
    const pages = pageQueries(env.db);
    const pdf = pdfPage(
      { url: PDF_URL, xRobotsTag: undefined, userAgent: 'LanternBot/0.1 (+test)' },
      {
        title: 'An Introduction to R',
        heading: 'An Introduction to R',
        pages: [
          `Preface\n${FILLER}\n${FILLER}`,
          `${FILLER}ends here.\nThe recycling rule\nVectors in an expression need not all be of the same length. ${FILLER}`,
        ],
        pageCount: 2,
        truncated: false,
      },
    );
    pages.upsertPage(
      makePage(PDF_URL, {
        title: pdf.title,
        headings: pdf.headings,
        body: pdf.text,
        contentType: 'application/pdf',
        fileType: 'pdf',
        pageStarts: pdf.pageStarts,
      }),
    );
    pages.upsertPage(
      makePage('http://py.test/gc.html', {
        title: 'Garbage collector interface',
        headings: ['Memory'],
        body: `Freed blocks may be recycled. As a rule, the collector runs often. ${FILLER}`,
      }),
    );
    service = new SearchService(env.db);
    service.start();
    await waitFor(() => service.ready, { timeoutMs: 5000, message: 'title index ready' });
  });
  after(() => {
    service.close();
    env.cleanup();
  });

  test('completes what is typed as a web page heading does', () => {
    const terms = service
      .suggest('recycl', 8)
      .suggestions.filter((s) => s.kind === 'term')
      .map((s) => s.text);
    assert.ok(terms.includes('recycling rule'), terms.join(' | '));
  });

  test('ranks above a page that only has the words in its text, and says its page', () => {
    const r = service.search('recycling rule', { limit: 10, offset: 0 });
    assert.deepEqual(
      r.results.map((x) => x.url),
      [PDF_URL, 'http://py.test/gc.html'],
    );
    assert.equal(r.results[0].page, 2);
  });
});
