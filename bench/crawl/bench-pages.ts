/**
 * The pages the crawl benchmark serves and parses, defined once so that the crawl and the
 * parse-only measurement (in other processes) work on byte-identical pages.
 */
import { createHash } from 'node:crypto';
import { generateSite, generatedPath } from '../../test-support/generate.ts';
import type { SiteSpec } from '../../test-support/test-web.ts';
import { DEFAULTS } from '../../shared/config.ts';
import { FETCH_DEFAULTS } from '../../crawler/fetch/fetcher.ts';
import { processPage } from '../../crawler/extract/page-processor.ts';
import type { ParsedPage } from '../../crawler/common/protocol.ts';

/** The robots.txt every benchmark site serves (allows everything, so the crawl fetches it and goes on). */
export const BENCH_ROBOTS = 'User-agent: *\nAllow: /\n';

/** The Content-Type the test web sends with every page. */
export const BENCH_CONTENT_TYPE = 'text/html; charset=utf-8';

/** How a set of identical generated sites is built. */
export interface BenchSiteOptions {
  pagesPerSite: number;
  /** Pad every page to about this size (undefined: generateSite's small pages). */
  bodyBytes?: number;
}

/** One generated benchmark site (the same for every site: pages depend only on the options). */
export function benchSite(opts: BenchSiteOptions): SiteSpec {
  return generateSite({ pages: opts.pagesPerSite, bodyBytes: opts.bodyBytes, robots: BENCH_ROBOTS });
}

/** A page as a worker would receive it. */
export interface BenchPage {
  url: string;
  body: Buffer;
}

/** Every page of every site, with its absolute URL on its site's origin. */
export function benchPages(origins: readonly string[], opts: BenchSiteOptions): BenchPage[] {
  const spec = benchSite(opts);
  const out: BenchPage[] = [];
  for (const origin of origins) {
    for (let i = 0; i < opts.pagesPerSite; i++) {
      const page = spec.pages[generatedPath(i)];
      const body = typeof page === 'string' ? page : String(page.body ?? '');
      out.push({ url: new URL(generatedPath(i), origin).href, body: Buffer.from(body) });
    }
  }
  return out;
}

/** A digest of URLs and bodies, to check that two processes hold the same pages. */
export function pagesDigest(pages: readonly BenchPage[]): string {
  const h = createHash('sha256');
  for (const p of pages) h.update(p.url).update('\0').update(p.body).update('\0');
  return h.digest('hex').slice(0, 16);
}

/** Parses one page exactly as a crawler worker does (same settings as the primary sends). */
export function parseLikeWorker(page: BenchPage): ParsedPage | null {
  return processPage({
    url: page.url,
    body: page.body,
    contentType: BENCH_CONTENT_TYPE,
    xRobotsTag: undefined,
    userAgent: DEFAULTS.userAgent,
    allowPrivate: true,
    maxLinks: FETCH_DEFAULTS.maxLinks,
  });
}
