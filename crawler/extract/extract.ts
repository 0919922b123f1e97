/**
 * Extraction of what the crawler stores and follows from an HTML page: title, description, headings,
 * readable text, language, canonical URL, links and robots meta values. Parses with cheerio's
 * htmlparser2 mode (the whole extraction of a 30 KB page takes 1.3 ms of CPU, 3.0 ms with cheerio's
 * default parse5; htmlparser2 repairs malformed HTML less like a browser does, but its tree is good
 * enough for text and links), after bounding how deeply elements
 * nest (nesting-limit.ts), and then walks the parse tree once, iteratively, without serialising
 * anything. Pure: no I/O.
 */
import * as cheerio from 'cheerio';
import { limitNesting } from './nesting-limit.ts';
import { resolveBase, resolveHttp, resolveLinks } from './links.ts';
import type { RawLink } from './links.ts';

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
  /** How many further distinct link URLs were found beyond maxLinks. */
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

const TITLE_MAX = 300;
const DESCRIPTION_MAX = 1000;
const HEADING_MAX = 300;
const HEADINGS_MAX_COUNT = 50;
const TEXT_MAX = 200_000;
const DEFAULT_MAX_LINKS = 5000;
/** Anchor text kept per link (a hostile page cannot make a link carry a book). */
export const ANCHOR_MAX_CHARS = 80;
/**
 * The text of a link to a place on the same page that is only one of these marks is a heading's
 * permalink (Sphinx's "¶", "#", "§", "🔗"): neither page text nor heading text.
 */
const PERMALINK_MARK = /^[\s¶#§🔗⚓\uFE0F]+$/u;
/** With this much non-chrome text (or a main/article), nav/aside/header/footer text is dropped. */
export const MIN_CONTENT_CHARS = 200;

/** Subtrees whose text is never page text. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'title',
  'object', 'embed', 'canvas', 'textarea', 'select', 'datalist']);
/** Elements rendered inline: no word break around them. Every other element separates words. */
const INLINE = new Set(['a', 'abbr', 'acronym', 'b', 'bdi', 'bdo', 'big', 'cite', 'code', 'data', 'del',
  'dfn', 'em', 'font', 'i', 'img', 'ins', 'kbd', 'label', 'mark', 'nobr', 'q', 'rp', 'rt', 'ruby', 's',
  'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u', 'var', 'wbr']);
/** Ancestors that make a header/footer part of the content rather than page chrome. */
const SECTIONING = new Set(['main', 'article', 'section']);
const WHITESPACE = /\s+/g;
/** Whitespace runs other than a lone space (replacing only these is ~4x faster than /\s+/g). */
const UNCOLLAPSED_WHITESPACE = /[^\S ]\s*| \s+/g;
/** Marks a block boundary in raw text; NUL never survives into page text (browsers drop it too). */
const BREAK = '\u0000';
const BREAK_RUN = / ?\u0000[\u0000 ]*/g;
/** Raw (uncollapsed) text collected at most; well above TEXT_MAX even for whitespace-heavy markup. */
const RAW_TEXT_MAX = TEXT_MAX * 5;
const FRAME_CHROME = 1;
const FRAME_SECTIONING = 2;
const FRAME_HEADING = 4;
const FRAME_LINK = 8;
/** htmlparser2 through cheerio (see the file comment). */
const PARSE_OPTIONS = { xml: { xmlMode: false, decodeEntities: true } } as const;

/** The shape of domhandler nodes that the walk reads (cheerio's parse tree). */
interface DomNode {
  type: string;
  parent: DomNode | null;
  next: DomNode | null;
  children?: DomNode[];
  name?: string;
  attribs?: Record<string, string>;
  data?: string;
}

/**
 * Extracts title, description, headings, readable text, language, canonical URL, links and robots
 * meta values from an HTML page. Never throws on malformed HTML; unparsable, non-http(s) and
 * javascript:/mailto:/tel:/data: hrefs are skipped silently.
 */
export function extractPage(html: string, pageUrl: string, opts: ExtractOptions): ExtractedPage {
  const token = opts.productToken.toLowerCase();
  const maxLinks = Math.max(0, opts.maxLinks ?? DEFAULT_MAX_LINKS);
  const root = cheerio.load(limitNesting(html), PARSE_OPTIONS).root()[0] as unknown as DomNode;

  let title: string | undefined;
  let description: string | undefined;
  let ogDescription: string | undefined;
  let lang: string | undefined;
  let baseHref: string | undefined;
  let canonicalHref: string | undefined;
  let firstH1: string | undefined;
  let hasMain = false;
  const headings: string[] = [];
  const metaRobots: string[] = [];
  const metaForToken: string[] = [];
  const rawLinks: RawLink[] = [];

  // Raw text of the whole page in order, and the same without page chrome, with BREAK between blocks;
  // which one becomes the page text is decided at the end.
  const all: string[] = [];
  const content: string[] = [];
  let rawLength = 0;
  let chromeDepth = 0;
  let sectioningDepth = 0;
  let headingParts: string[] | undefined;
  let headingLevel1 = false;
  // Link text: the open <a> (its raw link and text so far), and characters of text inside links.
  let anchor: { link: RawLink; parts: string[] } | undefined;
  let linkDepth = 0;
  let allChars = 0;
  let allLinkChars = 0;
  let contentChars = 0;
  let contentLinkChars = 0;

  const frames: number[] = []; // FRAME_* bits per open element

  const enter = (name: string, attribs: Record<string, string>): void => {
    const role = attribs.role?.toLowerCase();
    const isChrome = name === 'nav' || name === 'aside' || role === 'navigation' ||
      attribs['aria-hidden']?.toLowerCase() === 'true' ||
      ((name === 'header' || name === 'footer' || role === 'banner' || role === 'contentinfo') &&
        sectioningDepth === 0);
    const isSectioning = SECTIONING.has(name) || role === 'main';
    const isHeading = headingParts === undefined && (name === 'h1' || name === 'h2' || name === 'h3');
    const isLink = name === 'a' && attribs.href !== undefined;
    if (name === 'main' || name === 'article' || role === 'main') hasMain = true;
    if (isChrome) chromeDepth++;
    if (isSectioning) sectioningDepth++;
    if (isHeading) {
      headingParts = [];
      headingLevel1 = name === 'h1';
    }
    if (isLink) {
      linkDepth++;
      const link = rawLinks[rawLinks.length - 1];
      if (anchor === undefined && link !== undefined) anchor = { link, parts: [] };
    }
    frames.push((isChrome ? FRAME_CHROME : 0) | (isSectioning ? FRAME_SECTIONING : 0) | (isHeading ? FRAME_HEADING : 0) | (isLink ? FRAME_LINK : 0));
    if (!INLINE.has(name)) pushBreak();
  };

  const exit = (name: string): void => {
    const frame = frames.pop() ?? 0;
    if (!INLINE.has(name)) pushBreak();
    if (frame & FRAME_LINK) {
      linkDepth--;
      if (linkDepth === 0 && anchor !== undefined) {
        anchor.link.text = collapse(anchor.parts.join(''), ANCHOR_MAX_CHARS);
        anchor = undefined;
      }
    }
    if (frame & FRAME_CHROME) chromeDepth--;
    if (frame & FRAME_SECTIONING) sectioningDepth--;
    if (frame & FRAME_HEADING && headingParts) {
      const text = collapse(headingParts.join(''), HEADING_MAX);
      headingParts = undefined;
      if (text !== '') {
        if (headingLevel1 && firstH1 === undefined) firstH1 = text;
        if (headings.length < HEADINGS_MAX_COUNT) headings.push(text);
      }
    }
  };

  function pushBreak(): void {
    if (headingParts) headingParts.push(' ');
    all.push(BREAK);
    if (chromeDepth === 0) content.push(BREAK);
  }

  function pushText(data: string): void {
    if (data.indexOf(BREAK) !== -1) data = data.replaceAll(BREAK, ''); // NUL is not text; it is our marker
    if (headingParts && headingParts.length < 1000) headingParts.push(data);
    if (anchor !== undefined && anchor.parts.length < 100) anchor.parts.push(data);
    if (rawLength > RAW_TEXT_MAX) return; // far more than we keep
    rawLength += data.length;
    all.push(data);
    // Characters that are not whitespace, for the link density (markup indentation does not count).
    const chars = data.length - countWhitespace(data);
    allChars += chars;
    if (linkDepth > 0) allLinkChars += chars;
    if (chromeDepth === 0) {
      content.push(data);
      contentChars += chars;
      if (linkDepth > 0) contentLinkChars += chars;
    }
  }

  /** Looks at elements that carry metadata; returns whether the walk should descend into `el`. */
  const inspect = (name: string, attribs: Record<string, string>, el: DomNode): boolean => {
    switch (name) {
      case 'html':
        if (lang === undefined && attribs.lang !== undefined && attribs.lang.trim() !== '') lang = attribs.lang.trim();
        return true;
      case 'title':
        if (title === undefined) title = collapse(textOf(el), TITLE_MAX);
        return false;
      case 'base':
        if (baseHref === undefined && attribs.href !== undefined) baseHref = attribs.href;
        return false;
      case 'meta': {
        const metaName = (attribs.name ?? '').trim().toLowerCase();
        const metaContent = attribs.content;
        if (metaContent === undefined) return false;
        if (metaName === 'description') description ??= metaContent;
        else if (metaName === 'robots') metaRobots.push(metaContent);
        else if (metaName !== '' && metaName === token) metaForToken.push(metaContent);
        else if ((attribs.property ?? '').trim().toLowerCase() === 'og:description') ogDescription ??= metaContent;
        return false;
      }
      case 'link':
        if (canonicalHref === undefined && attribs.href !== undefined && hasToken(attribs.rel, 'canonical')) {
          canonicalHref = attribs.href;
        }
        return false;
      case 'a':
      case 'area':
        if (attribs.href === undefined) return true;
        // A heading's permalink mark ("¶") is no text of the page, its heading or a link.
        if (name === 'a' && attribs.href.trimStart().startsWith('#') && isPermalinkMark(el)) return false;
        rawLinks.push({ href: attribs.href, nofollow: hasToken(attribs.rel, 'nofollow'), inContent: chromeDepth === 0, text: '' });
        return true;
      default:
        return !SKIPPED.has(name);
    }
  };

  // Iterative pre-order walk over parent/next pointers: no recursion, so deep nesting cannot overflow.
  let node: DomNode | null = root.children?.[0] ?? null;
  while (node) {
    let descend = false;
    if (node.type === 'text') {
      if (node.data) pushText(node.data);
    } else if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      const name = node.name ?? '';
      const attribs = node.attribs ?? {};
      descend = inspect(name, attribs, node);
      if (descend) {
        enter(name, attribs);
        if (!node.children || node.children.length === 0) {
          exit(name);
          descend = false;
        }
      }
    }
    if (descend) {
      node = node.children![0]!;
      continue;
    }
    // Move to the next sibling, closing finished ancestors on the way up.
    while (node && !node.next) {
      node = node.parent;
      if (!node || node === root) {
        node = null;
        break;
      }
      exit(node.name ?? '');
    }
    node = node ? node.next : null;
  }

  const contentText = joinText(content);
  const useContent = hasMain || contentText.length >= MIN_CONTENT_CHARS;
  const text = useContent ? contentText : joinText(all);
  const [linkChars, textChars] = useContent ? [contentLinkChars, contentChars] : [allLinkChars, allChars];

  const base = resolveBase(baseHref, pageUrl);
  const { links, droppedLinks, anchors } = resolveLinks(rawLinks, base, maxLinks);
  const canonical = canonicalHref === undefined ? undefined : resolveHttp(canonicalHref, base);

  return {
    title: title || firstH1 || '',
    description: collapse(description ?? ogDescription ?? '', DESCRIPTION_MAX),
    headings,
    text,
    lang,
    canonical,
    links,
    droppedLinks,
    anchors,
    metaRobots,
    metaForToken,
    linkDensity: textChars === 0 ? 0 : Math.min(1, linkChars / textChars),
  };
}


/** Whether an element holds only text, and that text is a permalink mark (see PERMALINK_MARK). */
function isPermalinkMark(el: DomNode): boolean {
  const children = el.children ?? [];
  if (children.length === 0 || children.some((c) => c.type !== 'text')) return false;
  return PERMALINK_MARK.test(textOf(el));
}

/** Whitespace characters in `text`. */
function countWhitespace(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13) || c === 160) n++;
  }
  return n;
}

/** Whether a space-separated attribute such as `rel` contains `word` (case-insensitive). */
function hasToken(value: string | undefined, word: string): boolean {
  if (!value) return false;
  return value.toLowerCase().split(WHITESPACE).includes(word);
}

/** Concatenated text of an element's text children (enough for RCDATA elements such as title). */
function textOf(el: DomNode): string {
  let out = '';
  for (const child of el.children ?? []) if (child.type === 'text' && child.data) out += child.data;
  return out;
}

/** Collapses whitespace to single spaces, trims, and caps at `max` chars. */
function collapse(text: string, max: number): string {
  return cap(text.replace(WHITESPACE, ' ').trim(), max).trimEnd();
}

/** `text` cut to at most `max` chars, never between the two halves of a surrogate pair. */
function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * Joins raw text parts into page text: whitespace runs become one space, and any run of spaces and
 * BREAK markers that holds a marker becomes one '\n'; trimmed and capped at TEXT_MAX.
 */
function joinText(parts: string[]): string {
  const text = parts.join('').replace(UNCOLLAPSED_WHITESPACE, ' ').replace(BREAK_RUN, '\n').trim();
  return cap(text, TEXT_MAX);
}
