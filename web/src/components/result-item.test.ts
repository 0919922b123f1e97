/**
 * A search result offers what its page allows: the stored text link only when the page did not say
 * noarchive, and a snippet only when it has one (none for nosnippet). Rendered with React's server renderer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { SearchResult } from '../api.ts';
import { ResultItem, resultHref } from './result-item.tsx';

const result: SearchResult = {
  url: 'https://site.example/wombat',
  title: 'Wombats',
  host: 'site.example',
  snippet: [
    { text: 'The ', match: false },
    { text: 'wombat', match: true },
    { text: ' digs.', match: false },
  ],
  score: 1,
  fetchedAt: '2026-12-01T10:00:00.000Z',
  stored: true,
  moreFromSite: false,
  missing: [],
  labels: [],
  fileType: 'html',
  page: null,
};
const render = (r: SearchResult) =>
  renderToStaticMarkup(
    createElement(ResultItem, { result: r, moreHref: '/?q=site%3Asite.example', storedHref: '/stored?url=x' }),
  );

test('a page that allows it: its snippet, its stored text and more from its site', () => {
  const html = render(result);
  assert.match(html, /<p class="snippet">The <mark>wombat<\/mark> digs\.<\/p>/);
  assert.match(html, /<a href="\/stored\?url=x">Stored text/);
  assert.match(html, /More from this site/);
});

test('noarchive: no stored text link; nosnippet (an empty snippet): no snippet paragraph', () => {
  const html = render({ ...result, stored: false, snippet: [] });
  assert.doesNotMatch(html, /Stored text/);
  assert.doesNotMatch(html, /class="snippet"/);
  assert.match(html, /More from this site/, 'the other link stays');
});

test('a word that matched as a synonym is marked and says which typed word it stands for', () => {
  const html = render({
    ...result,
    snippet: [
      { text: 'You can ', match: false },
      { text: 'modify', match: true, for: 'change' },
      { text: ' the ', match: false },
      { text: 'printer', match: true },
    ],
  });
  assert.match(html, /You can <mark class="synonym" title="for “change”">modify<\/mark> the <mark>printer<\/mark>/);
});

test('OR mode: the words a result lacks, struck through after "Missing:"', () => {
  const html = render({ ...result, missing: ['taks', '"event loop"'] });
  assert.match(
    html,
    /<p class="result-missing">Missing: <span><s>taks<\/s><\/span><span>, <s>&quot;event loop&quot;<\/s><\/span><\/p>/,
  );
  assert.doesNotMatch(render(result), /Missing/);
});

test('a PDF result opens at the page its snippet is from; other results at their URL', () => {
  const pdf = { ...result, url: 'https://site.example/R-intro.pdf', fileType: 'pdf' as const, page: 28 };
  assert.equal(resultHref(pdf), 'https://site.example/R-intro.pdf#page=28');
  assert.match(render(pdf), /href="https:\/\/site\.example\/R-intro\.pdf#page=28"/);
  assert.equal(resultHref({ ...pdf, page: null }), 'https://site.example/R-intro.pdf');
  assert.equal(resultHref(result), 'https://site.example/wombat');
});
