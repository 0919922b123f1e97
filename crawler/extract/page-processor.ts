import { createHash } from 'node:crypto';
import { decodeBody, looksBinary, looksLikeHtml } from '../fetch/charset.ts';
import { extractPage } from './extract.ts';
import { parseRobotsDirectives } from './robots-directives.ts';
import { productToken } from '../politeness/robots.ts';
import { checkUrl } from '../frontier/url.ts';
import type { ParsedPage } from '../coordination/protocol.ts';

/**
 * Turns a fetched HTML body into what the primary stores and follows: decoded text, extracted fields,
 * robots directives (meta and X-Robots-Tag), and links normalized and judged by crawler/frontier/url.ts
 * (nofollow links and pages dropped; refused links silently left out). Null for a body that is not
 * HTML: untyped and not sniffed as HTML, or binary data whatever its type. Pure.
 */
export function processPage(input: { url: string; body: Buffer; contentType: string | undefined; xRobotsTag: string | undefined /* one header line per '\n' */; userAgent: string; allowPrivate: boolean; maxLinks: number }): ParsedPage | null {
  if (!input.contentType && !looksLikeHtml(input.body)) return null;
  if (looksBinary(input.body)) return null; // binary data served as text/html is not a page
  const { text: html } = decodeBody(input.body, input.contentType);
  const token = productToken(input.userAgent);
  const page = extractPage(html, input.url, { productToken: token, maxLinks: input.maxLinks });
  const directives = parseRobotsDirectives(
    { metaRobots: page.metaRobots, metaForToken: page.metaForToken, headerValues: input.xRobotsTag ? input.xRobotsTag.split('\n') : [] },
    token,
  );
  const links: string[] = [];
  if (!directives.nofollow) {
    const seen = new Set<string>();
    for (const link of page.links) {
      if (link.nofollow) continue;
      const checked = checkUrl(link.url, { allowPrivate: input.allowPrivate });
      if (!checked.ok || seen.has(checked.url)) continue;
      seen.add(checked.url);
      links.push(checked.url);
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
    contentHash: createHash('sha256').update(page.title).update('\0').update(page.text).digest('hex').slice(0, 32),
  };
}
