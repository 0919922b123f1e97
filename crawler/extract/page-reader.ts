/**
 * What extract.ts learns from htmlparser2's events, one page at a time: a Handler that reads the events
 * in document order, as a walk over the parse tree would meet them, and keeps title, headings, raw
 * text (all of it, and without page chrome), metadata, raw links with their words, and how much of
 * the text is link text. Pure: no I/O.
 */
import type { Handler } from 'htmlparser2';
import type { RawLink } from './links.ts';
import { INLINE, SECTIONING, SKIPPED } from './html-elements.ts';

const TITLE_MAX = 300;
const HEADING_MAX = 300;
const HEADINGS_MAX_COUNT = 50;
/** The most page text kept (chars). */
export const TEXT_MAX = 200_000;
const WHITESPACE = /\s+/g;
/** Marks a block boundary in raw text; NUL never survives into page text (browsers drop it too). */
export const BREAK = '\u0000';
/** Raw (uncollapsed) text collected at most; well above TEXT_MAX even for whitespace-heavy markup. */
const RAW_TEXT_MAX = TEXT_MAX * 5;
const FRAME_CHROME = 1;
const FRAME_SECTIONING = 2;
const FRAME_HEADING = 4;
const FRAME_LINK = 8;
/** Anchor text kept per link (a hostile page cannot make a link carry a book). */
export const ANCHOR_MAX_CHARS = 80;
/**
 * The text of a link to a place on the same page that is only one of these marks is a heading's
 * permalink (Sphinx's "¶", "#", "§", "🔗"): neither page text nor heading text nor a link.
 */
const PERMALINK_MARK = /^(?:[\s¶#§⚓]|🔗|\uFE0F)+$/u;

/** What a same-page link changed, to take back if it turns out to be a permalink mark (see PERMALINK_MARK). */
interface PermalinkCandidate {
  frames: number;
  rawLinks: number;
  all: number;
  content: number;
  heading: number;
  rawLength: number;
  chars: [number, number, number, number];
  /** An element opened inside it: not a mark. */
  hasChild: boolean;
  /** Its text so far (at most a little over what a mark could be). */
  text: string;
}

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
  readonly rawLinks: RawLink[] = [];
  /** Characters of text that are not whitespace, over the whole page and outside chrome, and of those inside links. */
  allChars = 0;
  allLinkChars = 0;
  contentChars = 0;
  contentLinkChars = 0;
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
  /** Links open around the current position, and the outermost one's raw link and words so far. */
  private linkDepth = 0;
  private anchor: { link: RawLink; parts: string[] } | undefined;
  /** The raw link the element being opened just recorded (consumed by `enter`). */
  private openedLink: RawLink | undefined;
  /** An open same-page link that may be a permalink mark. */
  private permalink: PermalinkCandidate | undefined;

  /** `token`: our robots product token, lower-case; `maxRawLinks`: hrefs recorded at most (later ones are not read). */
  constructor(
    private readonly token: string,
    private readonly maxRawLinks: number,
  ) {}

  onopentag(name: string, attribs: Record<string, string>): void {
    this.flushText();
    if (this.skipDepth > 0) {
      this.skipDepth++;
      return;
    }
    if (this.permalink) this.permalink.hasChild = true;
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
    // One text node longer than all the text a page keeps is cut there: joining a 12 MB node cost a
    // run as much in garbage collection as in parsing (bench:parsers, HTML "whitespace runs", 14.7x).
    if (this.skipDepth === 0) {
      if (this.pendingText.length <= RAW_TEXT_MAX) this.pendingText += data;
    } else if (this.skipDepth === 1 && this.titleText !== undefined) this.titleText += data; // the title's own text
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
        if (this.lang === undefined && attribs.lang !== undefined && attribs.lang.trim() !== '')
          this.lang = attribs.lang.trim();
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
        this.openedLink = undefined;
        if (attribs.href !== undefined && this.rawLinks.length < this.maxRawLinks) {
          this.openedLink = {
            href: attribs.href,
            nofollow: hasToken(attribs.rel, 'nofollow'),
            inContent: this.chromeDepth === 0,
            text: '',
          };
          this.rawLinks.push(this.openedLink);
        }
        return true;
      default:
        return !SKIPPED.has(name);
    }
  }

  private enter(name: string, attribs: Record<string, string>): void {
    const role = attribs.role?.toLowerCase();
    const isChrome =
      name === 'nav' ||
      name === 'aside' ||
      role === 'navigation' ||
      attribs['aria-hidden']?.toLowerCase() === 'true' ||
      ((name === 'header' || name === 'footer' || role === 'banner' || role === 'contentinfo') &&
        this.sectioningDepth === 0);
    const isSectioning = SECTIONING.has(name) || role === 'main';
    const isHeading = this.headingParts === undefined && (name === 'h1' || name === 'h2' || name === 'h3');
    const isLink = name === 'a' && attribs.href !== undefined;
    if (name === 'main' || name === 'article' || role === 'main') this.hasMain = true;
    if (isChrome) this.chromeDepth++;
    if (isSectioning) this.sectioningDepth++;
    if (isHeading) {
      this.headingParts = [];
      this.headingLevel1 = name === 'h1';
    }
    if (isLink) {
      if (this.permalink === undefined && attribs.href.trimStart().startsWith('#')) this.permalink = this.candidate();
      this.linkDepth++;
      if (this.anchor === undefined && this.openedLink !== undefined)
        this.anchor = { link: this.openedLink, parts: [] };
    }
    this.openedLink = undefined;
    this.frames.push(
      (isChrome ? FRAME_CHROME : 0) |
        (isSectioning ? FRAME_SECTIONING : 0) |
        (isHeading ? FRAME_HEADING : 0) |
        (isLink ? FRAME_LINK : 0),
    );
    if (!INLINE.has(name)) this.pushBreak();
  }

  /** What a same-page link about to be entered may have to take back (see endPermalink). */
  private candidate(): PermalinkCandidate {
    return {
      frames: this.frames.length,
      rawLinks: this.rawLinks.length - (this.openedLink ? 1 : 0),
      all: this.all.length,
      content: this.content.length,
      heading: this.headingParts?.length ?? 0,
      rawLength: this.rawLength,
      chars: [this.allChars, this.allLinkChars, this.contentChars, this.contentLinkChars],
      hasChild: false,
      text: '',
    };
  }

  /** The candidate link closed: if it held only a permalink mark, it was never there (no text, no link). */
  private endPermalink(c: PermalinkCandidate): void {
    this.permalink = undefined;
    if (c.hasChild || c.text === '' || !PERMALINK_MARK.test(c.text)) return;
    const dropped = this.rawLinks[c.rawLinks];
    this.rawLinks.length = c.rawLinks;
    this.all.length = c.all;
    this.content.length = c.content;
    if (this.headingParts) this.headingParts.length = c.heading;
    this.rawLength = c.rawLength;
    [this.allChars, this.allLinkChars, this.contentChars, this.contentLinkChars] = c.chars;
    if (this.anchor?.link === dropped) this.anchor = undefined;
  }

  private exit(name: string): void {
    const frame = this.frames.pop() ?? 0;
    if (!INLINE.has(name)) this.pushBreak();
    if (frame & FRAME_LINK) {
      this.linkDepth--;
      if (this.linkDepth === 0 && this.anchor !== undefined) {
        this.anchor.link.text = collapse(this.anchor.parts.join(''), ANCHOR_MAX_CHARS);
        this.anchor = undefined;
      }
      if (this.permalink && this.permalink.frames === this.frames.length) this.endPermalink(this.permalink);
    }
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

  /**
   * Marks a block boundary. A boundary right after another is not pushed: joinText makes a run of
   * them one line break anyway, and 100,000 empty elements would otherwise grow these arrays by
   * 100,000 entries each (in old space, so every garbage collection had more of them to look at:
   * extractPage grew 25x per 8x of such a page).
   */
  private pushBreak(): void {
    const heading = this.headingParts;
    if (heading && heading[heading.length - 1] !== ' ') heading.push(' ');
    if (this.all[this.all.length - 1] !== BREAK) this.all.push(BREAK);
    if (this.chromeDepth === 0 && this.content[this.content.length - 1] !== BREAK) this.content.push(BREAK);
  }

  private pushText(data: string): void {
    if (data.indexOf(BREAK) !== -1) data = data.replaceAll(BREAK, ''); // NUL is not text; it is our marker
    if (this.headingParts && this.headingParts.length < 1000) this.headingParts.push(data);
    if (this.anchor !== undefined && this.anchor.parts.length < 100) this.anchor.parts.push(data);
    if (this.permalink && this.permalink.text.length < 64) this.permalink.text += data;
    if (this.rawLength > RAW_TEXT_MAX) return; // far more than we keep
    this.rawLength += data.length;
    this.all.push(data);
    // Characters that are not whitespace, for the link density (markup indentation does not count).
    const chars = data.length - countWhitespace(data);
    this.allChars += chars;
    if (this.linkDepth > 0) this.allLinkChars += chars;
    if (this.chromeDepth === 0) {
      this.content.push(data);
      this.contentChars += chars;
      if (this.linkDepth > 0) this.contentLinkChars += chars;
    }
  }
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
