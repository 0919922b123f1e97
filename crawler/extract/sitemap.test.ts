import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { FetchFailure } from '../common/fetch-failure.ts';
import { parseSitemap, scanSitemap, SITEMAP_MAX_ENTRIES, sitemapText } from './sitemap.ts';

const AT = 'https://a.example/sitemap.xml';
const open = { allowPrivate: false };

describe('parseSitemap', () => {
  test('a urlset: its page URLs, normalized and deduplicated, in file order', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
        <url><loc>https://A.example/b</loc><lastmod>2025-01-01</lastmod></url>
        <url><loc>
          https://a.example/a?x=1&amp;y=2
        </loc></url>
        <url><loc><![CDATA[https://a.example/c#frag]]></loc></url>
        <url><loc>https://a.example/b</loc></url>
      </urlset>`;
    assert.deepEqual(parseSitemap(xml, AT, open), {
      index: false,
      urls: ['https://a.example/b', 'https://a.example/a?x=1&y=2', 'https://a.example/c'],
      dropped: 0,
    });
  });

  test('a sitemap index lists sitemaps', () => {
    const xml = '<sitemapindex><sitemap><loc>https://a.example/s1.xml.gz</loc></sitemap></sitemapindex>';
    assert.deepEqual(parseSitemap(xml, AT, open), { index: true, urls: ['https://a.example/s1.xml.gz'], dropped: 0 });
  });

  test('entries of another origin, private addresses, other schemes and junk are dropped', () => {
    const xml =
      '<urlset><url><loc>https://b.example/x</loc></url><url><loc>http://a.example/x</loc></url>' +
      '<url><loc>https://127.0.0.1/x</loc></url><url><loc>ftp://a.example/x</loc></url><url><loc>not a url</loc></url>' +
      '<url><loc>https://a.example/&#107;&#x6B;</loc></url></urlset>';
    assert.deepEqual(parseSitemap(xml, AT, open), { index: false, urls: ['https://a.example/kk'], dropped: 5 });
  });

  test('entities are only the predefined ones and character references: a DTD expands nothing', () => {
    const xml = '<!DOCTYPE x [<!ENTITY boom "https://a.example/boom">]><urlset><url><loc>&boom;</loc></url></urlset>';
    assert.deepEqual(parseSitemap(xml, AT, open), { index: false, urls: [], dropped: 1 });
  });

  test('an unclosed <loc> ends the scan: no input makes it go round and round', () => {
    const xml = `<urlset><url><loc>https://a.example/ok</loc></url>${'<loc>https://a.example/x '.repeat(200_000)}`;
    assert.deepEqual(parseSitemap(xml, AT, open), { index: false, urls: ['https://a.example/ok'], dropped: 0 });
  });

  test(`at most ${SITEMAP_MAX_ENTRIES} entries are read`, () => {
    const xml = `<urlset>${Array.from({ length: SITEMAP_MAX_ENTRIES + 5 }, (_, i) => `<url><loc>https://a.example/p${i}</loc></url>`).join('')}</urlset>`;
    const r = parseSitemap(xml, AT, open);
    assert.equal(r.urls.length, SITEMAP_MAX_ENTRIES);
    assert.equal(r.dropped, 5);
  });
});

describe('sitemapText', () => {
  test('a gzip body is decompressed (known by its magic bytes); plain text passes through', () => {
    const xml = '<urlset><url><loc>https://a.example/</loc></url></urlset>';
    assert.equal(sitemapText(zlib.gzipSync(xml)), xml);
    assert.equal(sitemapText(Buffer.from(xml)), xml);
  });

  test('a gzip bomb stops at the cap with a fatal failure that says why', () => {
    const bomb = zlib.gzipSync(Buffer.alloc(2 * 1024 * 1024));
    assert.throws(
      () => sitemapText(bomb, 1024 * 1024),
      (err: unknown) =>
        err instanceof FetchFailure && err.kind === 'fatal' && /larger than 1 MiB once decompressed/.test(err.message),
    );
    assert.throws(
      () => sitemapText(Buffer.from([0x1f, 0x8b, 1, 2, 3])),
      (err: unknown) => err instanceof FetchFailure && err.code === 'bad-gzip',
    );
  });
});

describe('scanSitemap: lastmod', () => {
  test("each entry's own <lastmod>, before or after its <loc>; a missing or unreadable one is left out", () => {
    const xml = `<urlset>
      <url><loc>https://a.example/a</loc><lastmod>2025-01-02</lastmod></url>
      <url><lastmod>2025-03-04T05:06:07+01:00</lastmod><loc>https://a.example/b</loc></url>
      <url><loc>https://a.example/c</loc></url>
      <url><loc>https://a.example/d</loc><lastmod>yesterday</lastmod></url>
      <url><loc>https://a.example/e</loc><changefreq>daily</changefreq><lastmod>2025-05-06T07:08:09Z</lastmod></url>
    </urlset>`;
    const scanned = scanSitemap(xml, AT, open);
    assert.deepEqual(
      scanned.urls,
      ['a', 'b', 'c', 'd', 'e'].map((p) => `https://a.example/${p}`),
    );
    assert.deepEqual(scanned.lastmod, {
      'https://a.example/a': Date.parse('2025-01-02'),
      'https://a.example/b': Date.parse('2025-03-04T04:06:07Z'),
      'https://a.example/e': Date.parse('2025-05-06T07:08:09Z'),
    });
  });

  test('entries without </url> (a hostile shape): each gets its own <lastmod>, and an entry of another origin gives none', () => {
    const days = Array.from({ length: 2000 }, (_, i) => new Date(Date.UTC(2020, 0, 1 + i)).toISOString().slice(0, 10));
    const xml = `<urlset>${days
      .map((d, i) => `<url><loc>https://${i === 1 ? 'other' : 'a'}.example/p${i}</loc><lastmod>${d}</lastmod>`)
      .join('\n')}`;
    const scanned = scanSitemap(xml, AT, open);
    assert.equal(scanned.urls.length, 1999);
    assert.equal(scanned.dropped, 1);
    const expected = Object.fromEntries(
      days.flatMap((d, i) => (i === 1 ? [] : [[`https://a.example/p${i}`, Date.parse(d)]])),
    );
    assert.deepEqual(scanned.lastmod, expected);
  });

  test('a lastmod of a dropped entry is not given to the next one', () => {
    const xml = `<urlset>
      <url><loc>https://other.example/x</loc><lastmod>2025-01-02</lastmod></url>
      <url><loc>https://a.example/y</loc></url>
    </urlset>`;
    assert.deepEqual(scanSitemap(xml, AT, open).lastmod, {});
  });
});
