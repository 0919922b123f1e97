/**
 * Plain-text and Markdown documents as pages: the text decoded by its charset, a title (Markdown: its
 * first `#` heading; plain text: its first line), Markdown headings (plain text: lines that read as
 * headings, lineHeadings), and Markdown's links followed like
 * a page's. Markdown is shown as the words a reader sees (link targets, emphasis marks and fences left
 * out), never as markup. Robots directives come from X-Robots-Tag only. Pure.
 */
import { createHash } from 'node:crypto';
import { decodeBody, looksBinary } from '../common/charset.ts';
import { checkUrl } from '../common/url.ts';
import { markdownHeading, markdownLinkTargets, readableMarkdown } from './markdown-inline.ts';
import { ChunkedString } from './chunked-string.ts';
import { parseRobotsDirectives } from './robots-directives.ts';
import { productToken } from '../politeness/robots.ts';
import type { ParsedPage } from '../common/protocol.ts';

const TITLE_MAX = 300;
const HEADINGS_MAX = 50;
const TEXT_MAX = 200_000;
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** Longest line, in words, read as a heading. */
const HEADING_WORDS = 8;
/** A numbered section heading: "2.2 Vector arithmetic", "5. Data Structures" (not a contents line ending in a page number). */
const NUMBERED = /^\d{1,2}(?:\.\d{1,2}){0,3}\.?\s+(\p{Lu}[\p{L}\p{M}\p{N}'’()\- ]*[\p{L})])$/u;
/** An unnumbered one: a capital first, only words after it, no sentence punctuation at its end. */
const PLAIN = /^\p{Lu}[\p{L}\p{M}'’\- ]*\p{L}$/u;

/**
 * The lines of a document's pages that read as headings, in order, without repeats: a numbered
 * section line ("2.2 Vector arithmetic", kept without its number), or a short line that starts with a
 * capital, has only words, stands after the end of a sentence (or at the top of a page) and before
 * a line that starts a sentence ("The recycling rule"). For text without markup: a PDF's extracted
 * lines (the font sizes stay in the PDF thread) and plain-text files.
 */
export function lineHeadings(pages: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (text: string): void => {
    const key = text.toLowerCase();
    if (out.length < HEADINGS_MAX && !seen.has(key)) {
      seen.add(key);
      out.push(text);
    }
  };
  for (const page of pages) {
    const lines = page.split('\n').map((l) => l.replace(/\s+/g, ' ').trim());
    // The next non-empty line after each line, found in one pass from the end (a page may have many lines).
    const next: Array<string | undefined> = new Array(lines.length);
    let following: string | undefined;
    for (let i = lines.length - 1; i >= 0; i--) {
      next[i] = following;
      if (lines[i] !== '') following = lines[i];
    }
    let before: string | undefined;
    lines.forEach((line, i) => {
      const previous = before;
      if (line !== '') before = line;
      if (line.length < 3 || line.length > 80 || line.split(' ').length > HEADING_WORDS) return;
      const numbered = NUMBERED.exec(line);
      if (numbered !== null) {
        add(numbered[1]);
        return;
      }
      const after = next[i];
      if (!PLAIN.test(line) || after === undefined || !/^\p{Lu}/u.test(after)) return;
      if (previous === undefined || /[.!?:]$/.test(previous)) add(line);
    });
  }
  return out;
}

/** What a processed document needs to know of its response. */
export interface DocumentInput {
  url: string;
  body: Buffer;
  contentType: string | undefined;
  /** One header line per '\n'. */
  xRobotsTag: string | undefined;
  userAgent: string;
  allowPrivate: boolean;
  maxLinks: number;
}

/** The robots directives of a non-HTML document: X-Robots-Tag lines only. */
export function headerDirectives(xRobotsTag: string | undefined, userAgent: string) {
  return parseRobotsDirectives(
    { metaRobots: [], metaForToken: [], headerValues: xRobotsTag ? xRobotsTag.split('\n') : [] },
    productToken(userAgent),
  );
}

/** A document's content hash, as HTML pages have it (title and text). */
export function contentHash(title: string, text: string): string {
  return createHash('sha256').update(title).update('\0').update(text).digest('hex').slice(0, 32);
}

/**
 * `text` whitespace-collapsed and cut to `max` code points. Only a prefix is collapsed: 4 * max units,
 * doubled until its collapse is longer than 2 * max units (or is all of `text`), as a title needs. The
 * whole line collapsed at once (`replace(/\s+/g, ' ')` over 8 M characters of short words) built one
 * piece per run: "link title never closed" grew 17.9x per 8x.
 */
export function oneLine(text: string, max: number, counter?: { steps: number }): string {
  let flat = '';
  for (let window = 4 * max; ; window *= 2) {
    const whole = window >= text.length;
    if (counter !== undefined) counter.steps += Math.min(window, text.length);
    flat = (whole ? text : text.slice(0, window)).replace(/\s+/g, ' ').trim();
    if (whole || flat.length > 2 * max) break;
  }
  return Array.from(flat.length > 2 * max ? flat.slice(0, 2 * max) : flat)
    .slice(0, max)
    .join('');
}

/**
 * `text` without the spaces and tabs that end each line: a scan back from each line's end (the regex it
 * replaces, `[ \t]+\n`, rescanned a run of spaces from every space of it when no newline followed).
 * Only the kept runs are pieces (ChunkedString), not one string per line: a 16 MB text of short lines
 * split into millions of strings grew 18-66x per 8x, its garbage collected over and over.
 */
export function withoutTrailingBlanks(text: string, counter?: { pieces: number }): string {
  const out = new ChunkedString();
  let copied = 0; // text[0, copied) is in out, or dropped as blanks
  for (let lineStart = 0; lineStart <= text.length; ) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    let end = lineEnd;
    while (end > lineStart && (text.charCodeAt(end - 1) === 0x20 || text.charCodeAt(end - 1) === 0x09)) end--;
    if (end < lineEnd) {
      out.push(text.slice(copied, end));
      copied = lineEnd;
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  if (counter !== undefined) counter.pieces += out.count + (out.count > 0 ? 1 : 0);
  if (out.count === 0) return text;
  out.push(text.slice(copied));
  return out.join();
}

/** The first line of `text` with something other than whitespace in it, or '' (without splitting all of it). */
function firstNonBlankLine(text: string): string {
  const first = /\S/.exec(text);
  if (first === null) return '';
  const start = text.lastIndexOf('\n', first.index) + 1;
  const end = text.indexOf('\n', first.index);
  return text.slice(start, end === -1 ? text.length : end);
}

/** Turns a plain-text or Markdown body into a page; null for binary data served as text. */
export function processTextDocument(input: DocumentInput, kind: 'text' | 'markdown'): ParsedPage | null {
  if (looksBinary(input.body)) return null;
  const raw = decodeBody(input.body, input.contentType).text.replace(CONTROL, '').replace(/\r\n?/g, '\n');
  const directives = headerDirectives(input.xRobotsTag, input.userAgent);
  const headings: string[] = [];
  let title = '';
  let text = '';
  const links: string[] = [];
  if (kind === 'markdown') {
    const seen = new Set<string>();
    let fenced = false;
    const out: string[] = [];
    for (const line of raw.split('\n')) {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        continue;
      }
      const heading = fenced ? null : markdownHeading(line);
      if (heading) {
        const words = oneLine(readableMarkdown(heading.text), TITLE_MAX);
        if (heading.level === 1 && title === '') title = words;
        if (heading.level <= 3 && headings.length < HEADINGS_MAX && words !== '') headings.push(words);
        out.push(words);
        continue;
      }
      if (!fenced && !directives.nofollow) {
        for (const target of markdownLinkTargets(line)) {
          if (links.length >= input.maxLinks) break;
          const checked = checkUrl(target, { allowPrivate: input.allowPrivate }, input.url);
          if (checked.ok && !seen.has(checked.url)) {
            seen.add(checked.url);
            links.push(checked.url);
          }
        }
      }
      out.push(fenced ? line : readableMarkdown(line.replace(/^\s{0,3}>\s?/, '')));
    }
    text = out.join('\n');
    if (title === '') title = headings[0] ?? '';
  } else {
    text = raw;
  }
  text = withoutTrailingBlanks(text)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (text.length > TEXT_MAX) text = text.slice(0, TEXT_MAX);
  if (title === '') title = oneLine(firstNonBlankLine(raw), 120);
  if (kind === 'text') headings.push(...lineHeadings([text]).filter((h) => h !== title));
  return {
    finalUrl: input.url,
    fileType: kind,
    pageStarts: null,
    title,
    description: '',
    headings,
    text,
    lang: null,
    canonical: null,
    links,
    noindex: directives.noindex,
    nofollow: directives.nofollow,
    noarchive: directives.noarchive,
    nosnippet: directives.nosnippet,
    contentHash: contentHash(title, text),
  };
}
