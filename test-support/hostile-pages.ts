/**
 * Small building blocks for the hostile-web crawler tests: plain pages, redirects, and reads of what
 * the crawler stored in its SQLite file.
 */
import type { CrawlerHarness } from './crawler-harness.ts';
import { runsCrawler } from './proc.ts';
import type { PageSpec } from './test-web.ts';

/** A small HTML page with a title, a sentence and links. */
export function htmlPage(title: string, links: string[] = [], extra = ''): string {
  return (
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>` +
    `<p>Text of ${title}.</p>${extra}${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`
  );
}

/** A 301 to `location` (sent exactly as given). */
export function moved(location: string): PageSpec {
  return { status: 301, headers: { location }, body: '' };
}

/** The stored page of a URL (title and body text), if the crawler stored one. */
export function storedPage(
  crawler: CrawlerHarness,
  url: string,
): { title: string; body: string; indexed: number } | undefined {
  return crawler.db.prepare('SELECT title, body, indexed FROM pages WHERE url = ?').get(url) as
    | { title: string; body: string; indexed: number }
    | undefined;
}

/** How many URLs of a host the frontier holds, in any state. */
export function frontierCount(crawler: CrawlerHarness, origin: string): number {
  return (crawler.db.prepare('SELECT COUNT(*) AS n FROM frontier WHERE origin = ?').get(origin) as { n: number }).n;
}

/** Pids of the crawler's cluster workers (children of the primary running crawler/worker.ts or its build; no helper processes). */
export function crawlWorkerPids(crawler: CrawlerHarness): number[] {
  return crawler
    .workerPids()
    .filter((pid) => runsCrawler(pid, 'worker'))
    .sort((a, b) => a - b);
}
