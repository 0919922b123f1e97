import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { linkTargetQueries } from '../../db/link-targets.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { SearchService } from './search-service.ts';
import type { RankingOptions } from './search-options.ts';
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

  test('a task in words that fills less than a page as typed is asked as a question too', () => {
    const r = service.search('get rid of untracked files', LIMIT);
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

describe('question search beyond the typed words', () => {
  let env: ReturnType<typeof tempDatabase>;
  const services: SearchService[] = [];
  const service = (ranking: Partial<RankingOptions>) => {
    const s = new SearchService(env.db, { ranking });
    s.refresh();
    services.push(s);
    return s;
  };
  before(() => {
    env = tempDatabase('questions-beyond');
    const pages = pageQueries(env.db);
    const links = linkTargetQueries(env.db);
    env.db.transaction(() => {
      // The first results of "how do I discard old drafts" all say "purge"; the others do not.
      for (let i = 0; i < 3; i++) {
        pages.upsertPage(
          makePage(`http://mail.test/drafts-${i}.html`, {
            title: `Drafts ${i}`,
            body: `Discard old drafts: purge the drafts folder. ${filler(`zeta${i} eta${i} theta${i}.`)}`,
          }),
        );
      }
      for (let i = 0; i < 6; i++) {
        pages.upsertPage(
          makePage(`http://mail.test/notes-${i}.html`, {
            title: `Notes ${i}`,
            body: `Old notes and drafts stay. ${filler(`iota${i} kappa${i} lambda${i}.`)}`,
          }),
        );
      }
      // Names only one of the question's words, in the words the first results use.
      pages.upsertPage(
        makePage('http://mail.test/cleanup.html', {
          title: 'Cleanup',
          body: `${filler('Storage settings.')} Drafts you purge are gone for good. ${filler('Quotas.')}`,
        }),
      );
      // Says "resize" and "image" once; another page says them often; pages linking to it name it so.
      const target = pages.upsertPage(
        makePage('http://img.test/pillow.html', {
          title: 'Pillow',
          body: `${filler('Pixels and modes.')} To resize an image call thumbnail. ${filler('Bands.')}`,
        }),
      );
      void target;
      pages.upsertPage(
        makePage('http://img.test/gallery.html', {
          title: 'Gallery',
          body: `${'Resize image galleries, resize image frames, image after image. '.repeat(6)}`,
        }),
      );
      for (let i = 0; i < 5; i++) {
        const from = pages.upsertPage(makePage(`http://img.test/ref-${i}.html`, { title: `Ref ${i}`, body: 'See.' }));
        links.recordLinks(from, [{ url: 'http://img.test/pillow.html', text: 'resize an image' }]);
      }
    })();
  });
  after(() => {
    for (const s of services) s.close();
    env.cleanup();
  });

  const paths = (r: SearchResponse) => r.results.map((x) => new URL(x.url).pathname);

  test('the words the first results share find a page that has only one of the typed words, marked in its snippet', () => {
    const on = service({}).search('how do I discard old drafts', LIMIT);
    const cleanup = on.results.find((x) => x.url.endsWith('/cleanup.html'));
    assert.ok(cleanup !== undefined, `got ${paths(on).join(' ')}`);
    assert.deepEqual(
      cleanup.snippet.filter((p) => p.for !== undefined).map((p) => [p.text.toLowerCase(), p.for]),
      [['purge', 'discard old drafts']],
    );
    const off = service({ feedback: false }).search('how do I discard old drafts', LIMIT);
    assert.ok(!paths(off).includes('/cleanup.html'), `without feedback: ${paths(off).join(' ')}`);
  });

  test('the words of the links to a page rank it for a question', () => {
    const q = 'how do I resize an image';
    const on = paths(service({}).search(q, LIMIT));
    const off = paths(service({ topicAnchors: false }).search(q, LIMIT));
    assert.equal(on[0], '/pillow.html', `with anchors: ${on.join(' ')}`);
    assert.equal(off[0], '/gallery.html', `without: ${off.join(' ')}`);
  });
});
