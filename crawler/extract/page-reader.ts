/**
 * What extract.ts learns from htmlparser2's events, one page at a time: a Handler that reads the events
 * in document order, as a walk over the parse tree would meet them, and keeps title, headings, raw
 * text (all of it, and without page chrome), metadata and raw links. Pure: no I/O.
 */
import type { Handler } from 'htmlparser2';

const TITLE_MAX = 300;
const HEADING_MAX = 300;
const HEADINGS_MAX_COUNT = 50;
/** The most page text kept (chars). */
export const TEXT_MAX = 200_000;
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
/** Marks a block boundary in raw text; NUL never survives into page text (browsers drop it too). */
export const BREAK = '\u0000';
/** Raw (uncollapsed) text collected at most; well above TEXT_MAX even for whitespace-heavy markup. */
const RAW_TEXT_MAX = TEXT_MAX * 5;
const FRAME_CHROME = 1;
const FRAME_SECTIONING = 2;
const FRAME_HEADING = 4;

/**
 * Reads the parser's events in document order, as a walk over the parse tree would meet them: an
 * element's start (`onopentag`, after which its children come), its end (`onclosetag`, also for
 * implied ends and void elements), and text (`ontext`, possibly in pieces: joined into one text node
 * until the next other event, as the tree builder does). Elements whose content is never page text
 * (script, style, title, meta, svg, ...) are skipped with everything inside them; the title's own text
 * is kept.
 */
export class PageReader implements Partial<Handler> {
  title: string | undefined;
  description: string | undefined;
  ogDescription: string | undefined;
  lang: string | undefined;
  baseHref: string | undefined;
  canonicalHref: string | undefined;
  firstH1: string | undefined;
  hasMain = false;
  readonly headings: string[] = [];
  readonly metaRobots: string[] = [];
  readonly metaForToken: string[] = [];
  readonly rawLinks: Array<{ href: string; nofollow: boolean }> = [];
  /**
   * Raw text of the whole page in order, and the same without page chrome, with BREAK between blocks;
   * which one becomes the page text is decided at the end.
   */
  readonly all: string[] = [];
  readonly content: string[] = [];

  private rawLength = 0;
  private chromeDepth = 0;
  private sectioningDepth = 0;
  private headingParts: string[] | undefined;
  private headingLevel1 = false;
  /** FRAME_* bits per open element that is walked into. */
  private readonly frames: number[] = [];
  /** Depth inside a skipped element (0: not skipping). */
  private skipDepth = 0;
  /** The title's text while inside the first <title>. */
  private titleText: string | undefined;
  /** Text of the current text node, until an event that is not text ends it. */
  private pendingText = '';

  /** `token`: our robots product token, lower-case; `maxRawLinks`: hrefs recorded at most (later ones are not read). */
  constructor(private readonly token: string, private readonly maxRawLinks: number) {}

  onopentag(name: string, attribs: Record<string, string>): void {
    this.flushText();
    if (this.skipDepth > 0) {
      this.skipDepth++;
      return;
    }
    if (!this.inspect(name, attribs)) {
      this.skipDepth = 1;
      return;
    }
    this.enter(name, attribs);
  }

  onclosetag(name: string): void {
    this.flushText();
    if (this.skipDepth > 0) {
      if (--this.skipDepth === 0 && this.titleText !== undefined) {
        this.title = collapse(this.titleText, TITLE_MAX);
        this.titleText = undefined;
      }
      return;
    }
    this.exit(name);
  }

  ontext(data: string): void {
    if (this.skipDepth === 0) this.pendingText += data;
    else if (this.skipDepth === 1 && this.titleText !== undefined) this.titleText += data; // the title's own text
  }

  oncomment(): void {
    this.flushText();
  }

  onprocessinginstruction(): void {
    this.flushText();
  }

  onend(): void {
    this.flushText();
  }

  private flushText(): void {
    if (this.pendingText === '') return;
    const data = this.pendingText;
    this.pendingText = '';
    this.pushText(data);
  }

  /** Looks at elements that carry metadata; returns whether their content is walked into. */
  private inspect(name: string, attribs: Record<string, string>): boolean {
    switch (name) {
      case 'html':
        if (this.lang === undefined && attribs.lang !== undefined && attribs.lang.trim() !== '') this.lang = attribs.lang.trim();
        return true;
      case 'title':
        if (this.title === undefined) this.titleText = '';
        return false;
      case 'base':
        if (this.baseHref === undefined && attribs.href !== undefined) this.baseHref = attribs.href;
        return false;
      case 'meta': {
        const metaName = (attribs.name ?? '').trim().toLowerCase();
        const metaContent = attribs.content;
        if (metaContent === undefined) return false;
        if (metaName === 'description') this.description ??= metaContent;
        else if (metaName === 'robots') this.metaRobots.push(metaContent);
        else if (metaName !== '' && metaName === this.token) this.metaForToken.push(metaContent);
        else if ((attribs.property ?? '').trim().toLowerCase() === 'og:description') this.ogDescription ??= metaContent;
        return false;
      }
      case 'link':
        if (this.canonicalHref === undefined && attribs.href !== undefined && hasToken(attribs.rel, 'canonical')) {
          this.canonicalHref = attribs.href;
        }
        return false;
      case 'a':
      case 'area':
        if (attribs.href !== undefined && this.rawLinks.length < this.maxRawLinks) this.rawLinks.push({ href: attribs.href, nofollow: hasToken(attribs.rel, 'nofollow') });
        return true;
      default:
        return !SKIPPED.has(name);
    }
  }

  private enter(name: string, attribs: Record<string, string>): void {
    const role = attribs.role?.toLowerCase();
    const isChrome = name === 'nav' || name === 'aside' || role === 'navigation' ||
      attribs['aria-hidden']?.toLowerCase() === 'true' ||
      ((name === 'header' || name === 'footer' || role === 'banner' || role === 'contentinfo') &&
        this.sectioningDepth === 0);
    const isSectioning = SECTIONING.has(name) || role === 'main';
    const isHeading = this.headingParts === undefined && (name === 'h1' || name === 'h2' || name === 'h3');
    if (name === 'main' || name === 'article' || role === 'main') this.hasMain = true;
    if (isChrome) this.chromeDepth++;
    if (isSectioning) this.sectioningDepth++;
    if (isHeading) {
      this.headingParts = [];
      this.headingLevel1 = name === 'h1';
    }
    this.frames.push((isChrome ? FRAME_CHROME : 0) | (isSectioning ? FRAME_SECTIONING : 0) | (isHeading ? FRAME_HEADING : 0));
    if (!INLINE.has(name)) this.pushBreak();
  }

  private exit(name: string): void {
    const frame = this.frames.pop() ?? 0;
    if (!INLINE.has(name)) this.pushBreak();
    if (frame & FRAME_CHROME) this.chromeDepth--;
    if (frame & FRAME_SECTIONING) this.sectioningDepth--;
    if (frame & FRAME_HEADING && this.headingParts) {
      const text = collapse(this.headingParts.join(''), HEADING_MAX);
      this.headingParts = undefined;
      if (text !== '') {
        if (this.headingLevel1 && this.firstH1 === undefined) this.firstH1 = text;
        if (this.headings.length < HEADINGS_MAX_COUNT) this.headings.push(text);
      }
    }
  }

  private pushBreak(): void {
    if (this.headingParts) this.headingParts.push(' ');
    this.all.push(BREAK);
    if (this.chromeDepth === 0) this.content.push(BREAK);
  }

  private pushText(data: string): void {
    if (data.indexOf(BREAK) !== -1) data = data.replaceAll(BREAK, ''); // NUL is not text; it is our marker
    if (this.headingParts && this.headingParts.length < 1000) this.headingParts.push(data);
    if (this.rawLength > RAW_TEXT_MAX) return; // far more than we keep
    this.rawLength += data.length;
    this.all.push(data);
    if (this.chromeDepth === 0) this.content.push(data);
  }
}

/** Whether a space-separated attribute such as `rel` contains `word` (case-insensitive). */
function hasToken(value: string | undefined, word: string): boolean {
  if (!value) return false;
  return value.toLowerCase().split(WHITESPACE).includes(word);
}

/** Collapses whitespace to single spaces, trims, and caps at `max` chars. */
export function collapse(text: string, max: number): string {
  return cap(text.replace(WHITESPACE, ' ').trim(), max).trimEnd();
}

/** `text` cut to at most `max` chars, never between the two halves of a surrogate pair. */
export function cap(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
