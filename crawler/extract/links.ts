/**
 * The links of a page as the page reader (page-reader.ts) found them, resolved: against `<base href>` or
 * the page URL, http(s) only, without fragments, deduped, capped; and those of the page's content with
 * their words (anchor text). `resolveLinks` works in slices (a generator), like the rest of extraction,
 * so a huge page's links do not hold the worker's other fetches. Pure.
 */
import type { ExtractedAnchor, ExtractedLink } from './extract.ts';

const SKIPPED_SCHEMES = /^\s*(?:javascript|mailto|tel|data):/i;
/** Hrefs resolved at a time by resolveLinks. */
export const LINK_SLICE = 256;

/** A link as the reader finds it, before its URL is resolved. */
export interface RawLink {
  href: string;
  nofollow: boolean;
  /** Outside page chrome (nav, aside, header, footer): what a person wrote. */
  inContent: boolean;
  /** Its words, whitespace-collapsed and capped (filled in when the element closes). */
  text: string;
}

/** The document base URL: `<base href>` resolved against the page URL if valid, else the page URL. */
export function resolveBase(baseHref: string | undefined, pageUrl: string): URL | undefined {
  let page: URL | undefined;
  try {
    page = new URL(pageUrl);
  } catch {
    return undefined;
  }
  if (baseHref === undefined) return page;
  try {
    const base = new URL(baseHref, page);
    return base.protocol === 'javascript:' || base.protocol === 'data:' ? page : base;
  } catch {
    return page;
  }
}

/** An absolute http(s) URL string without fragment, or undefined for anything else. */
export function resolveHttp(href: string, base: URL | undefined): string | undefined {
  if (SKIPPED_SCHEMES.test(href)) return undefined;
  // '#' always starts the fragment of an http(s) URL reference, so cutting it before parsing is exact
  // (and much cheaper than clearing url.hash afterwards).
  const hash = href.indexOf('#');
  let url: URL;
  try {
    url = new URL(hash === -1 ? href : href.slice(0, hash), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return url.href;
}

/**
 * Resolves, filters and dedupes raw hrefs, LINK_SLICE at a time; keeps the first `maxLinks` distinct
 * URLs, and of those the ones in the page's content with the words of their first worded occurrence.
 */
export function* resolveLinks(
  raw: RawLink[],
  base: URL | undefined,
  maxLinks: number,
): Generator<void, { links: ExtractedLink[]; droppedLinks: number; anchors: ExtractedAnchor[] }, void> {
  const byUrl = new Map<string, ExtractedLink>();
  const anchors = new Map<string, ExtractedAnchor>();
  const dropped = new Set<string>();
  const resolved = new Map<string, string | undefined>(); // raw href -> url, to skip repeated parsing
  for (let i = 0; i < raw.length; i++) {
    if (i > 0 && i % LINK_SLICE === 0) yield;
    const { href, nofollow } = raw[i];
    let url = resolved.get(href);
    if (url === undefined && !resolved.has(href)) {
      url = resolveHttp(href, base);
      resolved.set(href, url);
    }
    if (url === undefined) continue;
    const seen = byUrl.get(url);
    if (seen) {
      if (!nofollow) seen.nofollow = false;
    } else if (byUrl.size < maxLinks) {
      byUrl.set(url, { url, nofollow });
    } else {
      dropped.add(url);
    }
  }
  for (let i = 0; i < raw.length; i++) {
    if (i > 0 && i % LINK_SLICE === 0) yield;
    const { href, nofollow, inContent, text } = raw[i];
    const url = resolved.get(href);
    if (url === undefined || !inContent || !byUrl.has(url)) continue;
    const seen = anchors.get(url);
    if (seen) {
      if (!nofollow) seen.nofollow = false;
      if (seen.text === '') seen.text = text;
    } else {
      anchors.set(url, { url, text, nofollow });
    }
  }
  return { links: [...byUrl.values()], droppedLinks: dropped.size, anchors: [...anchors.values()] };
}
