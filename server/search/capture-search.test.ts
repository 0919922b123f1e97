/**
 * label: and filetype: in search, and what results say of them (labels, kind, a PDF snippet's page),
 * over a real database with seeds, labels and pages as the server and the crawler write them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { seedQueries } from '../../db/seeds.ts';
import { seedLabelQueries } from '../../db/seed-labels.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { parseQuery } from './query-parser.ts';
import { SearchService } from './search-service.ts';

const LIMIT = { limit: 10, offset: 0 };
const FILLER = 'Ordinary words about nothing in particular fill this line so the text has some length to it. ';

describe('label: and filetype:', () => {
  const env = tempDatabase();
  let service: SearchService;

  before(async () => {
    const seeds = seedQueries(env.db);
    const labels = seedLabelQueries(env.db);
    const astro = seeds.upsertSeed(
      { url: 'https://astro.example/', origin: 'https://astro.example', depth: 1, scope: 'host' },
      1,
    ).seed.id;
    const other = seeds.upsertSeed(
      { url: 'https://other.example/', origin: 'https://other.example', depth: 2, scope: 'any' },
      1,
    ).seed.id;
    seeds.upsertSeed(
      { url: 'https://other.example/kept.html', origin: 'https://other.example', depth: 0, scope: 'host' },
      1,
    );
    labels.setLabels(astro, ['astronomy', 'reading']);
    labels.setLabels(seeds.listSeeds().find((s) => s.url === 'https://other.example/kept.html')!.id, ['keepers']);
    const pages = pageQueries(env.db);
    const manualPages = [
      `Mounting the telescope. ${FILLER}`,
      `${FILLER}Collimation of the telescope mirror needs patience.`,
      `${FILLER}Eyepiece care and cleaning.`,
    ];
    const starts: number[] = [];
    let at = 0;
    for (const p of manualPages) {
      starts.push(at);
      at += p.length + 2;
    }
    pages.upsertPage(
      makePage('https://astro.example/manual.pdf', {
        seedId: astro,
        title: 'Telescope manual',
        body: manualPages.join('\n\n'),
        contentType: 'application/pdf',
        fileType: 'pdf',
        pageStarts: starts,
      }),
    );
    pages.upsertPage(
      makePage('https://astro.example/', {
        seedId: astro,
        title: 'Astro club',
        body: `Our telescope nights. ${FILLER}`,
      }),
    );
    pages.upsertPage(
      makePage('https://other.example/', { seedId: other, title: 'Other', body: `A telescope for sale. ${FILLER}` }),
    );
    pages.upsertPage(
      makePage('https://other.example/kept.html', {
        seedId: other,
        title: 'Kept page',
        body: `A telescope review worth keeping. ${FILLER}`,
      }),
    );
    pages.upsertPage(
      makePage('https://other.example/notes.txt', {
        seedId: other,
        title: 'Notes',
        body: `telescope shopping list ${FILLER}`,
        contentType: 'text/plain',
        fileType: 'text',
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

  const urls = (q: string) =>
    service
      .search(q, LIMIT)
      .results.map((r) => r.url)
      .sort();

  test('the operators parse, fold, and leave the words alone', () => {
    const p = parseQuery('telescope label:Dev_Tools label:"x" filetype:PDF type:md filetype:exe label:!!');
    assert.deepEqual(
      [p.items.map((i) => (i.kind === 'term' ? i.text : '')), p.labels, p.fileTypes],
      [['telescope', 'x'], ['dev_tools'], ['pdf', 'markdown']],
    );
  });

  test("label: keeps pages found by a seed carrying the label, or that are themselves a labelled seed's page", () => {
    assert.deepEqual(urls('telescope label:astronomy'), ['https://astro.example/', 'https://astro.example/manual.pdf']);
    assert.deepEqual(urls('telescope label:Keepers'), ['https://other.example/kept.html']);
    assert.deepEqual(
      urls('telescope label:astronomy label:keepers'),
      ['https://astro.example/', 'https://astro.example/manual.pdf', 'https://other.example/kept.html'],
      'several labels OR',
    );
    assert.deepEqual(urls('telescope label:nothing'), []);
  });

  test('filetype: keeps one kind of document, and combines with label: and site:', () => {
    assert.deepEqual(urls('telescope filetype:pdf'), ['https://astro.example/manual.pdf']);
    assert.deepEqual(urls('telescope filetype:txt'), ['https://other.example/notes.txt']);
    assert.deepEqual(urls('telescope filetype:pdf label:keepers'), []);
    assert.deepEqual(urls('telescope filetype:html site:other.example'), [
      'https://other.example/',
      'https://other.example/kept.html',
    ]);
    assert.deepEqual(
      urls('filetype:pdf manu'),
      ['https://astro.example/manual.pdf'],
      'a title-index prefix match passes the filter too',
    );
    assert.deepEqual(urls('filetype:html manu'), []);
  });

  test('results say their labels, their kind, and for a PDF the page the snippet is from', () => {
    const r = service.search('collimation', LIMIT).results;
    assert.equal(r.length, 1);
    assert.deepEqual([r[0].labels, r[0].fileType, r[0].page], [['astronomy', 'reading'], 'pdf', 2]);
    assert.equal(service.search('eyepiece cleaning', LIMIT).results[0].page, 3);
    assert.equal(service.search('mounting', LIMIT).results[0].page, 1);
    assert.equal(
      service.search('patience', LIMIT).results[0].page,
      2,
      'the page of the matched word, though the snippet starts on the page before',
    );
    const kept = service.search('review keeping', LIMIT).results[0];
    assert.deepEqual([kept.labels, kept.fileType, kept.page], [['keepers'], 'html', null]);
  });

  test('suggestions keep label: and filetype: as typed and offer only the pages they keep', () => {
    const pagesFor = (q: string) =>
      service
        .suggest(q, 8)
        .suggestions.filter((s) => s.kind === 'title')
        .map((s) => s.url);
    assert.deepEqual(pagesFor('filetype:pdf tele'), ['https://astro.example/manual.pdf']);
    assert.deepEqual(pagesFor('label:astronomy tele'), ['https://astro.example/manual.pdf']);
    assert.deepEqual(pagesFor('filetype:txt tele'), []);
    assert.deepEqual(pagesFor('label:keepers tele'), []);
    assert.ok(
      service.suggest('label:keepers tele', 8).suggestions.every((s) => s.text.startsWith('label:keepers tele')),
    );
  });

  test('operators alone list what they select, newest first, paged; excluded words alone are a bad query', () => {
    const list = (q: string, opts = LIMIT) => service.search(q, opts).results.map((r) => r.url);
    assert.deepEqual(list('label:astronomy'), ['https://astro.example/', 'https://astro.example/manual.pdf']);
    assert.deepEqual(list('filetype:pdf'), ['https://astro.example/manual.pdf']);
    assert.deepEqual(list('label:astronomy filetype:pdf'), ['https://astro.example/manual.pdf']);
    assert.deepEqual(list('site:other.example'), [
      'https://other.example/notes.txt',
      'https://other.example/kept.html',
      'https://other.example/',
    ]);
    const second = service.search('site:other.example', { limit: 2, offset: 2 });
    assert.deepEqual([second.total, second.results.map((r) => r.url)], [3, ['https://other.example/']]);
    const pdf = service.search('filetype:pdf', LIMIT).results[0];
    assert.deepEqual([pdf.title, pdf.fileType, pdf.labels], ['Telescope manual', 'pdf', ['astronomy', 'reading']]);
    assert.ok(
      pdf.snippet
        .map((p) => p.text)
        .join('')
        .startsWith('Mounting the telescope'),
      'the start of its text',
    );
    assert.equal(service.search('label:nothing', LIMIT).total, 0);
    assert.throws(() => service.search('-telescope -site:other.example', LIMIT), /nothing to search for/);
  });
});
