import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { SearchService } from './search-service.ts';
import type { SearchResponse } from './types.ts';

const LIMIT = { limit: 10, offset: 0 };
const filler = (words: string) => `${words} `.repeat(40);

/** Man-page-like pages that state their purpose in their first line, and a long page holding every word of the questions. */
const PAGES = [
  makePage('http://docs.test/git-clean.html', {
    title: 'git-clean(1)',
    headings: ['NAME', 'SYNOPSIS', 'DESCRIPTION'],
    body: `git-clean - Remove untracked files from the working tree. ${filler('Cleans the tree by removing paths.')}`,
  }),
  makePage('http://docs.test/git-status.html', {
    title: 'git-status(1)',
    headings: ['NAME', 'SYNOPSIS', 'DESCRIPTION'],
    body: `git-status - Show the working tree status. ${filler('Displays paths that differ between the index and the tree.')}`,
  }),
  makePage('http://docs.test/faq.html', {
    title: 'Frequently asked questions',
    headings: ['General'],
    body: `How do I get started? ${filler('Questions people ask about many things.')} Can I get rid of a remote? Yes. Some files are untracked. ${filler('More questions and answers here.')}`,
  }),
  makePage('http://docs.test/printing.html', {
    title: 'Printing',
    headings: ['Printer settings'],
    body: `The printer settings dialog: you can modify them there. ${filler('Paper sizes and trays.')}`,
  }),
];

describe("questions in a person's words", () => {
  let env: ReturnType<typeof tempDatabase>;
  let service: SearchService;
  before(() => {
    env = tempDatabase('questions');
    const pages = pageQueries(env.db);
    env.db.transaction(() => {
      for (const p of PAGES) pages.upsertPage(p);
    })();
    service = new SearchService(env.db);
    service.refresh();
  });
  after(() => {
    service.close();
    env.cleanup();
  });

  const paths = (r: SearchResponse) => r.results.map((x) => new URL(x.url).pathname);

  test('the page whose opening states the topic leads, not the page that holds every word of the question', () => {
    const r = service.search('how do I get rid of untracked files', LIMIT);
    assert.equal(paths(r)[0], '/git-clean.html', `got ${paths(r).join(' ')}`);
    assert.ok(paths(r).includes('/faq.html'), 'the page with every word still shows');
  });

  test('a synonym that ranked a page is marked in its snippet as the page words it', () => {
    const r = service.search('how can I change the printer settings', LIMIT);
    const printing = r.results.find((x) => x.url.endsWith('/printing.html'));
    assert.ok(printing !== undefined, `got ${paths(r).join(' ')}`);
    const marked = printing.snippet.filter((p) => p.match).map((p) => p.text.toLowerCase());
    assert.ok(marked.includes('modify'), `marked: ${marked.join(', ')}`);
    // It says which typed word it stands for; the typed words that matched do not.
    assert.deepEqual(
      printing.snippet.filter((p) => p.for !== undefined).map((p) => [p.text.toLowerCase(), p.for]),
      [['modify', 'change']],
    );
  });
});
