/**
 * Sitemaps (sitemaps.org protocol): the files a site lists with `Sitemap:` in its robots.txt to tell
 * crawlers which pages exist, including pages no link reaches. Lantern reads the `<loc>` entries with a
 * bounded scan, not an XML parser, so a hostile file cannot expand entities or nest without end; only
 * the five predefined entities and numeric character references are decoded. Pure, apart from
 * decompressing a gzip body within a cap.
 * Kept by hand, and why: a sitemap reader or XML parser builds objects for every element and field,
 * where Lantern needs only the `<loc>` texts, and a scan that knows no markup but `<loc>` cannot be
 * made to nest or expand anything: one indexOf pass, bounded by SITEMAP_MAX_BYTES and
 * SITEMAP_MAX_ENTRIES (gzip is zlib's, its maxOutputLength the cap).
 */
import zlib from 'node:zlib';
import { FetchFailure } from '../common/fetch-failure.ts';
import { checkUrl } from '../common/url.ts';
import type { SitemapEntries } from '../common/sitemap-entries.ts';

/** Largest sitemap read, after decompression (the protocol allows 50 MB; our pages cap is 5 MiB). */
export const SITEMAP_MAX_BYTES = 10 * 1024 * 1024;
/** Most entries read from one sitemap (the protocol's own limit per file). */
export const SITEMAP_MAX_ENTRIES = 50_000;

/** A `<lastmod>` (W3C datetime: a date, or a date and time with its zone) in ms; undefined when unreadable. */
export function parseLastmod(text: string): number | undefined {
  const v = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(v)) return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

const CDATA = /^<!\[CDATA\[([\s\S]*)\]\]>$/;
const ENTITY = /&(?:(amp|lt|gt|quot|apos)|#(\d{1,7})|#x([0-9a-f]{1,6}));/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(ENTITY, (whole, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
    if (name) return NAMED[name.toLowerCase()];
    const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * The entries of a sitemap fetched from `sitemapUrl`: page URLs of a urlset, or sitemap URLs of a
 * sitemap index. Per the protocol a sitemap speaks only for its own origin: entries elsewhere are
 * dropped, as are URLs crawler/common/url.ts refuses (private addresses unless `allowPrivate`).
 */
export function parseSitemap(xml: string, sitemapUrl: string, opts: { allowPrivate: boolean }): SitemapEntries {
  const { lastmod: _lastmod, ...entries } = scanSitemap(xml, sitemapUrl, opts);
  return entries;
}

/**
 * parseSitemap with each urlset entry's `<lastmod>` too (`lastmod`): looked for inside the entry's own
 * `<url>` element, before or after its `<loc>`, so the scan stays one pass over the file.
 */
export function scanSitemap(
  xml: string,
  sitemapUrl: string,
  opts: { allowPrivate: boolean },
): SitemapEntries & { lastmod: Record<string, number> } {
  const origin = new URL(sitemapUrl).origin;
  const firstLoc = xml.indexOf('<loc>');
  const head = firstLoc === -1 ? xml.slice(0, 4096) : xml.slice(0, firstLoc);
  const index = /<sitemapindex[\s>]/i.test(head);
  const seen = new Set<string>();
  const lastmod: Record<string, number> = {};
  let urlEnd = 0; // the end of the previous entry's <url> element (its </url>), or of its </loc>
  let dropped = 0;
  let entries = 0;
  // One pass of indexOf (XML names are case-sensitive: `<loc>` as the protocol writes it); an unclosed
  // <loc> ends the scan, so no input costs more than one walk through it.
  for (let at = firstLoc; at !== -1; at = xml.indexOf('<loc>', at)) {
    const close = xml.indexOf('</loc>', at + 5);
    if (close === -1) break;
    const raw = xml.slice(at + 5, close).trim();
    at = close + 6;
    if (++entries > SITEMAP_MAX_ENTRIES) {
      dropped++;
      continue;
    }
    // The entry's <url> element: from the end of the previous one (or of the previous <loc>, when it
    // had no </url>) to its own </url>, never past the next <loc>; so each part of the file is searched
    // at most twice (from the start of the file instead, a file without </url> cost a search of all
    // that came before for every entry: quadratic, 4,000 entries took 0.34 s and 50,000 took 38 s).
    let stamp: number | undefined;
    if (!index) {
      let read = at; // past what this entry's <url> element was seen to hold
      const nextLoc = xml.indexOf('<loc>', at);
      const region = xml.slice(urlEnd, nextLoc === -1 ? xml.length : nextLoc);
      const end = region.indexOf('</url>', at - urlEnd);
      const open = region.indexOf('<lastmod>');
      if (open !== -1 && (end === -1 || open < end)) {
        const shut = region.indexOf('</lastmod>', open + 9);
        stamp = shut === -1 ? undefined : parseLastmod(region.slice(open + 9, shut));
        if (shut !== -1) read = Math.max(read, urlEnd + shut + 10);
      }
      urlEnd = end === -1 ? read : urlEnd + end;
    }
    const text = decodeEntities(CDATA.exec(raw)?.[1] ?? raw).trim();
    const checked = checkUrl(text, { allowPrivate: opts.allowPrivate });
    if (!checked.ok || new URL(checked.url).origin !== origin) {
      dropped++;
      continue;
    }
    seen.add(checked.url);
    if (stamp !== undefined) lastmod[checked.url] = stamp;
  }
  return { index, urls: [...seen], dropped, lastmod };
}

/**
 * A sitemap body as text: gzip (recognised by its magic bytes, as `.xml.gz` files are usually served
 * without Content-Encoding) is decompressed, never past `cap` bytes; a body that cannot be is a fatal
 * FetchFailure for that sitemap.
 */
export function sitemapText(body: Buffer, cap = SITEMAP_MAX_BYTES): string {
  if (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b) {
    try {
      return zlib.gunzipSync(body, { maxOutputLength: cap }).toString('utf8');
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new FetchFailure(
          'fatal',
          'too-large',
          `sitemap: larger than ${cap / 1024 / 1024} MiB once decompressed (a compression bomb?); not read`,
        );
      }
      throw new FetchFailure(
        'fatal',
        'bad-gzip',
        `sitemap: the gzip body could not be decompressed (${(err as Error).message})`,
      );
    }
  }
  return body.toString('utf8');
}
