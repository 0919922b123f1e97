/**
 * Extraction of what the crawler stores and follows from an HTML page: title, description, headings,
 * readable text, language, canonical URL, links and robots meta values. After bounding how deeply
 * elements nest (nesting-limit.ts), the page goes through htmlparser2's tokenizer and parser (the parser
 * cheerio's htmlparser2 mode uses) as a stream of events, read as they come: no tree is built. Until
 * now it was parsed into cheerio's tree and the tree walked once; the events are the very ones the tree
 * was built from (open, text, close, implied ends included), so the same page gives the same result,
 * and a 30 KB page costs about half the CPU and a fraction of the garbage. htmlparser2 repairs
 * malformed HTML less like a browser than parse5 does, but well enough for text and links.
 * `extractPageSteps` does the work in slices (a generator: a slice of HTML parsed, a slice of links
 * resolved), so a worker can let its other fetches run between two slices of a huge page; `extractPage`
 * runs the slices at once. Pure: no I/O.
 */
import { Parser } from 'htmlparser2';
import { limitNesting } from './nesting-limit.ts';
import { cap, collapse, PageReader, TEXT_MAX } from './page-reader.ts';
import { resolveBase, resolveHttp, resolveLinks } from './links.ts';

/** A link found on a page. */
export interface ExtractedLink {
  /** Absolute http(s) URL, resolved against `<base href>` (if valid) else the page URL; no fragment. */
  url: string;
  /** Every occurrence of this URL on the page had `rel` containing `nofollow`. */
  nofollow: boolean;
}

/** A link of the page's content (not its navigation, header, footer or sidebars): what a person wrote. */
export interface ExtractedAnchor {
  /** As in ExtractedLink. */
  url: string;
  /** The words of its first occurrence in the content that has any, whitespace-collapsed, at most ANCHOR_MAX_CHARS; '' for none. */
  text: string;
  /** Every occurrence of it in the content had `rel` containing `nofollow`. */
  nofollow: boolean;
}

/** Everything the crawler keeps from one HTML page. */
export interface ExtractedPage {
  /** `<title>` text, whitespace-collapsed, trimmed, at most 300 chars; else the first h1; else ''. */
  title: string;
  /** `<meta name=description>` (else `og:description`) content, at most 1000 chars. */
  description: string;
  /** h1–h3 texts in document order, whitespace-collapsed, at most 50, each at most 300 chars. */
  headings: string[];
  /**
   * Readable body text: blocks separated by '\n', other whitespace collapsed to single spaces, at most
   * 200,000 chars. Never includes script/style/noscript/template/svg/math/iframe/title content.
   * Page chrome (nav, aside, [role=navigation], [aria-hidden=true], and header/footer that are not
   * inside main/article/section) is dropped when the page has main/article/[role=main] or at least
   * MIN_CONTENT_CHARS of other text.
   */
  text: string;
  /** `<html lang>`, trimmed; undefined when missing or empty. */
  lang: string | undefined;
  /** Absolute http(s) `<link rel=canonical href>` without fragment. */
  canonical: string | undefined;
  /** Links from `<a href>` and `<area href>`, deduped by url, in first-seen order, at most maxLinks. */
  links: ExtractedLink[];
  /**
   * How many further distinct link URLs were found beyond maxLinks, among the first
   * rawLinkCap(maxLinks) hrefs: the hrefs of a page past that are not read at all.
   */
  droppedLinks: number;
  /** The links of `links` that occur in the page's content, with their words, in first-seen order. */
  anchors: ExtractedAnchor[];
  /** `content` values of `<meta name=robots>`. */
  metaRobots: string[];
  /** `content` values of `<meta name=<productToken>>` (name matched case-insensitively). */
  metaForToken: string[];
  /**
   * Share of `text` (in characters) that is the text of links, 0..1: near 1 for pages that are mostly
   * links (tables of contents, indexes, site maps), a ranking signal. 0 for a page without text.
   */
  linkDensity: number;
}

/** Options of `extractPage`. */
export interface ExtractOptions {
  /** Our robots product token, e.g. `LanternBot`, for `<meta name="LanternBot">`. */
  productToken: string;
  /** Most links kept (default 5000). */
  maxLinks?: number;
}

const DESCRIPTION_MAX = 1000;
const DEFAULT_MAX_LINKS = 5000;
/** With this much non-chrome text (or a main/article), nav/aside/header/footer text is dropped. */
export const MIN_CONTENT_CHARS = 200;
/**
 * The runs joinText rewrites, in one pass: a run of whitespace and BREAK markers that holds a marker
 * (it becomes '\n'), else a whitespace run other than a lone space (it becomes ' '; replacing only these
 * is ~4x faster than /\s+/g). One pass instead of two (collapse, then breaks): 25-30 % less time.
 */
const TEXT_RUN = /[\s\u0000]*\u0000[\s\u0000]*|[^\S ]\s*| \s+/g;
const runReplacement = (run: string): string => (run.indexOf('\u0000') === -1 ? ' ' : '\n');
/** A character of the runs joinText collapses (whitespace, or the BREAK marker). */
const RUN_CHAR = /[\s\u0000]/;
/** Raw text normalized at a time by joinText (chars). */
const TEXT_SLICE = 16_384;
/** htmlparser2's options as cheerio's htmlparser2 mode gives them (HTML, entities decoded). */
const PARSE_OPTIONS = { xmlMode: false, decodeEntities: true } as const;
/** HTML given to the parser at a time by extractPageSteps (characters). */
export const SLICE_CHARS = 8_192;

/**
 * The most hrefs of one page that are read (resolved, deduped), for `maxLinks` kept: four times as many,
 * and at least 10,000, so that repeated links (menus, pagers) still leave maxLinks distinct ones. A page
 * of 100,000 links costs 20,000 resolutions, not 100,000.
 */
export function rawLinkCap(maxLinks: number): number {
  return Math.max(10_000, 4 * maxLinks);
}

/**
 * Extracts title, description, headings, readable text, language, canonical URL, links and robots
 * meta values from an HTML page. Never throws on malformed HTML; unparsable, non-http(s) and
 * javascript:/mailto:/tel:/data: hrefs are skipped silently.
 */
export function extractPage(html: string, pageUrl: string, opts: ExtractOptions): ExtractedPage {
  return runToEnd(extractPageSteps(html, pageUrl, opts));
}

/** Runs a generator of slices to its end and returns its result. */
export function runToEnd<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * extractPage in slices: each `next()` parses up to SLICE_CHARS of HTML or resolves up to LINK_SLICE
 * hrefs; the last returns the page. The caller decides what happens between two slices.
 */
export function* extractPageSteps(
  html: string,
  pageUrl: string,
  opts: ExtractOptions,
): Generator<void, ExtractedPage, void> {
  const maxLinks = Math.max(0, opts.maxLinks ?? DEFAULT_MAX_LINKS);
  const reader = new PageReader(opts.productToken.toLowerCase(), rawLinkCap(maxLinks));
  const parser = new Parser(reader, PARSE_OPTIONS);
  const input = limitNesting(html);
  for (let at = 0; at < input.length; at += SLICE_CHARS) {
    yield;
    parser.write(input.length <= SLICE_CHARS ? input : input.slice(at, at + SLICE_CHARS));
  }
  parser.end();

  const contentText = yield* joinText(reader.content);
  const useContent = reader.hasMain || contentText.length >= MIN_CONTENT_CHARS;
  const text = useContent ? contentText : yield* joinText(reader.all);
  const [linkChars, textChars] = useContent
    ? [reader.contentLinkChars, reader.contentChars]
    : [reader.allLinkChars, reader.allChars];
  const base = resolveBase(reader.baseHref, pageUrl);
  const { links, droppedLinks, anchors } = yield* resolveLinks(reader.rawLinks, base, maxLinks);
  const canonical = reader.canonicalHref === undefined ? undefined : resolveHttp(reader.canonicalHref, base);
  return {
    title: reader.title || reader.firstH1 || '',
    description: collapse(reader.description ?? reader.ogDescription ?? '', DESCRIPTION_MAX),
    headings: reader.headings,
    text,
    lang: reader.lang,
    canonical,
    links,
    droppedLinks,
    anchors,
    metaRobots: reader.metaRobots,
    metaForToken: reader.metaForToken,
    linkDensity: textChars === 0 ? 0 : Math.min(1, linkChars / textChars),
  };
}

/**
 * Joins raw text parts into page text: whitespace runs become one space, and any run of spaces and
 * BREAK markers that holds a marker becomes one '\n'; trimmed and capped at TEXT_MAX. Long raw text
 * (up to RAW_TEXT_MAX) is done TEXT_SLICE at a time, cut only between a run and the character after it
 * (so no run is split and the result is the same), and only until TEXT_MAX is certain to be reached.
 */
function* joinText(parts: string[]): Generator<void, string, void> {
  const raw = parts.join('');
  let out = '';
  // Three chars over TEXT_MAX: trimming takes at most one at each end (runs are single chars by then),
  // and the cut still falls past TEXT_MAX, where cap() decides it.
  for (let from = 0; from < raw.length && out.length < TEXT_MAX + 3; ) {
    let to = Math.min(raw.length, from + TEXT_SLICE);
    while (to < raw.length && RUN_CHAR.test(raw[to])) to++;
    if (from > 0) yield;
    out += raw.slice(from, to).replace(TEXT_RUN, runReplacement);
    from = to;
  }
  return cap(out.trim(), TEXT_MAX);
}
