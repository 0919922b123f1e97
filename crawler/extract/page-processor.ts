import { createHash } from 'node:crypto';
import { decodeBody, looksBinary, looksLikeHtml } from '../common/charset.ts';
import { extractPageSteps, runToEnd } from './extract.ts';
import { parseRobotsDirectives } from './robots-directives.ts';
import { productToken } from '../politeness/robots.ts';
import { checkUrl } from '../common/url.ts';
import type { PageAnchor, ParsedPage } from '../common/protocol.ts';

/** Content links per page whose target and words are kept (the first ones, in page order). */
export const ANCHORS_PER_PAGE = 200;
/** Words kept of one link's text. */
export const ANCHOR_MAX_WORDS = 10;

/** A link's text as kept: its first ANCHOR_MAX_WORDS words. */
export function anchorWords(text: string): string {
  const words = text.split(/\s+/).filter((w) => w !== '');
  return words.slice(0, ANCHOR_MAX_WORDS).join(' ');
}

/** What processPage is given: a fetched body, its headers, and the worker's settings. */
export interface PageInput {
  url: string;
  body: Buffer;
  contentType: string | undefined;
  /** X-Robots-Tag, one header line per '\n'. */
  xRobotsTag: string | undefined;
  userAgent: string;
  allowPrivate: boolean;
  maxLinks: number;
}

/** Links judged (crawler/common/url.ts) at a time by processPageSteps. */
const CHECK_SLICE = 128;

/**
 * Turns a fetched HTML body into what the primary stores and follows: decoded text, extracted fields,
 * robots directives (meta and X-Robots-Tag), and links normalized and judged by crawler/common/url.ts
 * (nofollow links and pages dropped; refused links silently left out). Null for a body that is not
 * HTML: untyped and not sniffed as HTML, or binary data whatever its type. Pure.
 */
export function processPage(input: PageInput): ParsedPage | null {
  return runToEnd(processPageSteps(input));
}

/**
 * processPage in slices (see extractPageSteps): each `next()` does a bounded part of the work, so the
 * worker can serve its other fetches between two slices of a huge page. Pure.
 */
export function* processPageSteps(input: PageInput): Generator<void, ParsedPage | null, void> {
  if (!input.contentType && !looksLikeHtml(input.body)) return null;
  if (looksBinary(input.body)) return null; // binary data served as text/html is not a page
  const { text: html } = decodeBody(input.body, input.contentType);
  yield;
  const token = productToken(input.userAgent);
  const page = yield* extractPageSteps(html, input.url, { productToken: token, maxLinks: input.maxLinks });
  const directives = parseRobotsDirectives(
    {
      metaRobots: page.metaRobots,
      metaForToken: page.metaForToken,
      headerValues: input.xRobotsTag ? input.xRobotsTag.split('\n') : [],
    },
    token,
  );
  const links: string[] = [];
  const anchors: PageAnchor[] = [];
  if (!directives.nofollow) {
    const seen = new Set<string>();
    const self = checkUrl(input.url, { allowPrivate: input.allowPrivate });
    for (let i = 0; i < page.links.length; i++) {
      if (i > 0 && i % CHECK_SLICE === 0) yield;
      const link = page.links[i];
      if (link.nofollow) continue;
      const checked = checkUrl(link.url, { allowPrivate: input.allowPrivate });
      if (!checked.ok || seen.has(checked.url)) continue;
      seen.add(checked.url);
      links.push(checked.url);
    }
    for (const anchor of page.anchors) {
      if (anchors.length >= ANCHORS_PER_PAGE) break;
      if (anchor.nofollow) continue;
      const checked = checkUrl(anchor.url, { allowPrivate: input.allowPrivate });
      if (!checked.ok || (self.ok && self.url === checked.url) || anchors.some((a) => a.url === checked.url)) continue;
      anchors.push({ url: checked.url, text: anchorWords(anchor.text) });
    }
  }
  const canonical = page.canonical ? checkUrl(page.canonical, { allowPrivate: input.allowPrivate }) : undefined;
  return {
    finalUrl: input.url,
    fileType: 'html',
    pageStarts: null,
    title: page.title,
    description: page.description,
    headings: page.headings,
    text: page.text,
    lang: page.lang ?? null,
    canonical: canonical?.ok ? canonical.url : null,
    links,
    noindex: directives.noindex,
    nofollow: directives.nofollow,
    noarchive: directives.noarchive,
    nosnippet: directives.nosnippet,
    anchors,
    linkDensity: Math.round(page.linkDensity * 1000) / 1000,
    contentHash: createHash('sha256').update(page.title).update('\0').update(page.text).digest('hex').slice(0, 32),
  };
}
