/**
 * The parsers the growth benchmark feeds: every parser of bytes a site or a file chose, each with its
 * base size (characters at 1x) and its hostile shapes (test-support/hostile-shapes.ts).
 */
import { extractPage } from '../../crawler/extract/extract.ts';
import { parseRobotsDirectives } from '../../crawler/extract/robots-directives.ts';
import { scanSitemap } from '../../crawler/extract/sitemap.ts';
import { processTextDocument } from '../../crawler/extract/text-document.ts';
import { checkUrl, MAX_URL_LENGTH } from '../../crawler/common/url.ts';
import { trapReason } from '../../crawler/common/url-traps.ts';
import { compileRobots, ROBOTS_MAX_BYTES } from '../../crawler/politeness/robots.ts';
import { looksLikeBookmarkHtml, parseBookmarkHtml } from '../../server/capture/bookmark-html.ts';
import { detectFormat, MAX_IMPORT_ENTRIES } from '../../server/capture/import-plan.ts';
import { looksLikeCsv, parseCsvBookmarks, parseUrlLines } from '../../server/capture/url-list.ts';
import { MAX_QUERY_CHARS, parseQuery } from '../../server/search/query-parser.ts';
import {
  BOOKMARK_HTML_SHAPES,
  CSV_SHAPES,
  DIRECTIVE_SHAPES,
  FORMAT_SNIFF_SHAPES,
  HTML_SHAPES,
  type HostileShape,
  MARKDOWN_SHAPES,
  QUERY_SHAPES,
  ROBOTS_SHAPES,
  SITEMAP_SHAPES,
  TEXT_SHAPES,
  URL_LINES_SHAPES,
  URL_SHAPES,
} from '../../test-support/hostile-shapes.ts';

/**
 * One parser under test: what it is, the base size (characters) the benchmark starts from (and grows
 * until a run is measurable, growth.ts chooseBase), the most characters the product lets it read (then
 * measured below that cap), and how one input is run through it.
 */
export interface ParserUnderTest {
  name: string;
  file: string;
  base: number;
  cap?: number;
  shapes: readonly HostileShape[];
  run: (input: string) => unknown;
}

const UA = 'LanternBot/0.1.0';

/**
 * A text or Markdown document as the crawler worker hands it to processTextDocument: its body a Buffer,
 * made once per input and not in the timed run (Buffer.from of 8 Mi characters was most of a run of
 * "control characters", which the text parser refuses as binary after reading 4,096 bytes).
 */
const textDocument = (kind: 'text' | 'markdown') => {
  let lastText: string | undefined;
  let body = Buffer.alloc(0);
  return (t: string) => {
    if (t !== lastText) {
      body = Buffer.from(t);
      lastText = t;
    }
    return processTextDocument(
      {
        url: `http://m.test/a.${kind === 'text' ? 'txt' : 'md'}`,
        body,
        contentType: `text/${kind === 'text' ? 'plain' : 'markdown'}; charset=utf-8`,
        xRobotsTag: undefined,
        userAgent: UA,
        allowPrivate: false,
        maxLinks: 5000,
      },
      kind,
    );
  };
};

/** Every parser the benchmark measures, in the order of its table. */
export const PARSERS: readonly ParserUnderTest[] = [
  {
    name: 'bookmark HTML',
    file: 'server/capture/bookmark-html.ts parseBookmarkHtml',
    base: 1_000,
    shapes: BOOKMARK_HTML_SHAPES,
    run: (t) => parseBookmarkHtml(t, { maxEntries: MAX_IMPORT_ENTRIES }), // as planImport reads it
  },
  {
    name: 'import format sniffing',
    file: 'server/capture looksLikeBookmarkHtml, looksLikeCsv, detectFormat',
    base: 1_000,
    shapes: FORMAT_SNIFF_SHAPES,
    run: (t) => [looksLikeBookmarkHtml(t), looksLikeCsv(t), detectFormat(t)],
  },
  {
    name: 'CSV import',
    file: 'server/capture/url-list.ts parseCsvBookmarks',
    base: 4_000,
    shapes: CSV_SHAPES,
    run: (t) => parseCsvBookmarks(t, { maxEntries: MAX_IMPORT_ENTRIES }), // as planImport reads it
  },
  {
    name: 'URL-list import',
    file: 'server/capture/url-list.ts parseUrlLines',
    base: 4_000,
    shapes: URL_LINES_SHAPES,
    run: (t) => parseUrlLines(t, { maxEntries: MAX_IMPORT_ENTRIES }),
  },
  {
    name: 'sitemap',
    file: 'crawler/extract/sitemap.ts scanSitemap',
    base: 4_000,
    shapes: SITEMAP_SHAPES,
    run: (t) => scanSitemap(t, 'http://s.test/sitemap.xml', { allowPrivate: false }),
  },
  {
    name: 'robots.txt',
    file: 'crawler/politeness/robots.ts compileRobots',
    base: 4_000,
    cap: ROBOTS_MAX_BYTES,
    shapes: ROBOTS_SHAPES,
    run: (t) => compileRobots('http://r.test/robots.txt', t, UA),
  },
  {
    name: 'HTML page',
    file: 'crawler/extract/extract.ts extractPage',
    base: 16_000,
    shapes: HTML_SHAPES,
    run: (t) => extractPage(t, 'http://h.test/', { productToken: 'LanternBot' }),
  },
  {
    name: 'Markdown document',
    file: 'crawler/extract/text-document.ts processTextDocument',
    base: 2_000,
    shapes: MARKDOWN_SHAPES,
    run: textDocument('markdown'),
  },
  {
    name: 'text document',
    file: 'crawler/extract/text-document.ts processTextDocument',
    base: 4_000,
    shapes: TEXT_SHAPES,
    run: textDocument('text'),
  },
  {
    name: 'page directives',
    file: 'crawler/extract/robots-directives.ts parseRobotsDirectives',
    base: 4_000,
    shapes: DIRECTIVE_SHAPES,
    run: (t) => parseRobotsDirectives({ metaRobots: [t], metaForToken: [t], headerValues: [t] }, 'lanternbot'),
  },
  {
    name: 'search query (≤ 1,000 chars)',
    file: 'server/search/query-parser.ts parseQuery',
    base: 15,
    cap: MAX_QUERY_CHARS,
    shapes: QUERY_SHAPES,
    run: parseQuery,
  },
  {
    name: 'URL (≤ 2,048 chars)',
    file: 'crawler/common/url.ts checkUrl, url-traps.ts trapReason',
    base: 30,
    cap: MAX_URL_LENGTH,
    shapes: URL_SHAPES,
    run: (t) => [checkUrl(t, { allowPrivate: false }), trapReason(t)],
  },
];
