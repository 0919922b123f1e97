/**
 * Inputs shaped to make a parser of a stranger's bytes backtrack or rescan: for each parser, several
 * shapes, each a function of a size (about that many characters). The growth benchmark
 * (bench/parsers/parsers-bench.ts) feeds them at 1x, 8x and 64x; unit tests feed fixed sizes and count
 * steps or check what comes out. Pure: strings only.
 */

/** One hostile shape: what it is, and the input of about `size` characters. */
export interface HostileShape {
  name: string;
  make: (size: number) => string;
}

const times = (unit: string, size: number): string => unit.repeat(Math.max(1, Math.floor(size / unit.length)));

/** Netscape bookmark files (server/capture/bookmark-html.ts). */
export const BOOKMARK_HTML_SHAPES: readonly HostileShape[] = [
  { name: 'attribute-name run, no =', make: (n) => `<DL><p>\n<DT><A ${times('h', n)}>x</A>\n</DL>` },
  { name: '<a with no >', make: (n) => `<DL><p>\n${times('<a ', n)}` },
  { name: 'deep folders', make: (n) => `${times('<DL><p><DT><H3>f</H3>\n', n)}<DT><A HREF="http://a.test/">a</A>` },
  { name: 'anchors never closed', make: (n) => `<DL><p>\n${times('<DT><A HREF="http://a.test/">t\n', n)}` },
  { name: 'tags never closed', make: (n) => `<DL><p>\n<DT><A HREF="http://a.test/${times('<x', n)}` },
];

/** Format sniffing of an import file (looksLikeBookmarkHtml, looksLikeCsv, detectFormat). */
export const FORMAT_SNIFF_SHAPES: readonly HostileShape[] = [
  { name: '<dl> then <a with no >', make: (n) => `<dl>${times('<a ', n)}` },
  { name: '<a then spaces, no href', make: (n) => `<dl><a${times(' ', n)}` },
  { name: 'one huge first line', make: (n) => times(' a,', n) },
];

/** CSV import (server/capture/url-list.ts parseCsvBookmarks). */
export const CSV_SHAPES: readonly HostileShape[] = [
  { name: 'quote never closed', make: (n) => `url,title\n"${times('a', n)}` },
  { name: 'huge field', make: (n) => `url,title\nhttp://a.test/,${times('a', n)}` },
  { name: 'doubled quotes', make: (n) => `url,title\n"${times('""', n)}"` },
  { name: 'many rows', make: (n) => `url,title\n${times('http://a.test/x,t\n', n)}` },
  { name: 'many empty fields', make: (n) => `url,title\n${times(',', n)}` },
];

/** URL-list import (server/capture/url-list.ts parseUrlLines). */
export const URL_LINES_SHAPES: readonly HostileShape[] = [
  { name: 'one huge line', make: (n) => `http://a.test/${times('a', n)}` },
  { name: 'a line of spaces', make: (n) => `http://a.test/${times(' ', n)}x` },
  { name: 'many lines', make: (n) => times('http://a.test/p t\n', n) },
];

/** Sitemaps (crawler/extract/sitemap.ts). */
export const SITEMAP_SHAPES: readonly HostileShape[] = [
  { name: '<loc> never closed', make: (n) => `<urlset>${times('<loc>', n)}` },
  { name: 'one huge loc', make: (n) => `<urlset><url><loc>http://s.test/${times('a', n)}</loc></url></urlset>` },
  {
    name: 'entries without </url>',
    make: (n) => `<urlset>${times('<url><loc>http://s.test/a</loc><lastmod>', n)}`,
  },
  { name: 'CDATA never closed', make: (n) => `<urlset><url><loc><![CDATA[${times('a]]', n)}</loc></url></urlset>` },
  {
    name: 'many entries',
    make: (n) => `<urlset>${times('<url><loc>http://s.test/p</loc><lastmod>2024-01-01</lastmod></url>', n)}</urlset>`,
  },
];

/** robots.txt (crawler/politeness/robots*.ts compileRobots). */
export const ROBOTS_SHAPES: readonly HostileShape[] = [
  { name: 'a run of *', make: (n) => `User-agent: *\nDisallow: /${times('*', n)}x\n` },
  { name: 'many wildcard rules', make: (n) => `User-agent: *\n${times('Disallow: /a*b*c$\n', n)}` },
  { name: 'one huge line', make: (n) => `User-agent: *\nDisallow: /${times('a', n)}` },
  { name: 'many user-agent lines', make: (n) => `${times('User-agent: a\n', n)}Disallow: /\n` },
  { name: 'spaces around a colon', make: (n) => `User-agent${times(' ', n / 2)}:${times(' ', n / 2)}*\n` },
];

/** HTML pages (crawler/extract/extract.ts extractPage). */
export const HTML_SHAPES: readonly HostileShape[] = [
  { name: 'comment never closed', make: (n) => `<html><body><p>a<!--${times('a-', n)}` },
  { name: 'tags never closed', make: (n) => `<html><body>${times('<div>', n)}x` },
  { name: 'deep nesting', make: (n) => `<html><body>${times('<b>', n / 2)}x${times('</b>', n / 2)}` },
  { name: 'attribute run', make: (n) => `<html><body><a ${times('x ', n)}href="/a">a</a>` },
  { name: '<a with no >', make: (n) => `<html><body>${times('<a ', n)}` },
  { name: 'whitespace runs', make: (n) => `<html><body><p>${times('a \t\n\u0000  ', n)}</p>` },
  { name: 'many links', make: (n) => `<html><body>${times('<a href="/p">w</a> ', n)}` },
];

/** Plain text and Markdown documents (crawler/extract/text-document.ts). */
export const MARKDOWN_SHAPES: readonly HostileShape[] = [
  { name: '[ never closed', make: (n) => times('[', n) },
  { name: '](  never closed', make: (n) => times('[a](', n) },
  { name: 'a run of backticks', make: (n) => `${times('`', n)}a` },
  { name: 'heading with spaces', make: (n) => `# a${times(' ', n)}x` },
  { name: '<http:// never closed', make: (n) => times('<http://', n) },
  { name: 'link title never closed', make: (n) => times('](a "', n) },
  { name: 'emphasis never closed', make: (n) => times('*a', n) },
];

/** Plain-text documents (crawler/extract/text-document.ts). */
export const TEXT_SHAPES: readonly HostileShape[] = [
  { name: 'spaces, then a letter', make: (n) => `a${times(' ', n)}x` },
  { name: 'blank lines of spaces', make: (n) => times(' \t \n', n) },
  { name: 'control characters, 1 in 200 (not binary)', make: (n) => times(`${'a'.repeat(198)}\u0001\r`, n) },
];

/** Page directives: meta robots content and X-Robots-Tag values (crawler/extract/robots-directives.ts). */
export const DIRECTIVE_SHAPES: readonly HostileShape[] = [
  { name: 'max-snippet: and zeros', make: (n) => `max-snippet:${times('0', n)}1` },
  { name: 'many bot prefixes', make: (n) => times('a: b: ', n) },
  { name: 'a bot name, spaces, no colon', make: (n) => `googlebot${times(' ', n)}x` },
  { name: 'commas and spaces', make: (n) => times(', ', n) },
];

/** The search query parser (server/search/query-parser.ts); it reads at most MAX_QUERY_CHARS. */
export const QUERY_SHAPES: readonly HostileShape[] = [
  { name: 'punctuation inside a word', make: (n) => `a${times('!', n)}a` },
  { name: 'a run of * inside a word', make: (n) => `a${times('*', n)}b` },
  { name: 'a run of quotes', make: (n) => times('"', n) },
  { name: 'a run of -', make: (n) => times('-', n) },
  { name: 'many site:', make: (n) => times('site:a. ', n) },
  { name: 'operators', make: (n) => times('-"a" +b OR ', n) },
];

/** URL checks (crawler/common/url.ts checkUrl, url-traps.ts); URLs are at most MAX_URL_LENGTH. */
export const URL_SHAPES: readonly HostileShape[] = [
  { name: 'dots, no colon', make: (n) => times('a.', n) },
  { name: 'dots then :x', make: (n) => `${times('a.', n)}:x` },
  { name: 'many @', make: (n) => `http://${times('a@', n)}b/` },
  { name: 'repeated path segments', make: (n) => `http://a.test/${times('a/b/', n)}` },
];
