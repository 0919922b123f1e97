/**
 * A site that answers on many names, as one behind wildcard DNS does (a1.example.org, a2.example.org,
 * ...): here, one loopback address per name (127.0.0.x, each its own host to the crawler; the machine's
 * resolver is never touched). Every name's front page links to every other name, so any page reached
 * leads to more hosts: the crawl's only bound is the per-seed host budget (CRAWL_MAX_HOSTS_PER_SEED).
 */
import { startTestWeb, type TestSite, type TestWeb } from './test-web.ts';

/** The names of a wildcard site; `names[0]` is the one to seed. Each site's log says whether it was contacted. */
export interface WildcardSite extends TestWeb {
  names: TestSite[];
  /** The names that received any request (robots.txt included). */
  contacted(): TestSite[];
}

/** Starts `count` names, each front page linking to all the others ('/' of each). */
export async function startWildcardSite(count: number): Promise<WildcardSite> {
  const web = await startTestWeb(Array.from({ length: count }, () => ({ pages: {} })));
  const names = web.sites;
  for (const [i, site] of names.entries()) {
    const links = names
      .filter((other) => other !== site)
      .map((other) => `<a href="${other.url('/')}">name ${other.host}</a>`)
      .join('\n');
    site.setPage(
      '/',
      `<!doctype html><html><head><title>Name ${i}</title></head><body><p>One of many names.</p>\n${links}\n</body></html>`,
    );
  }
  return { ...web, names, contacted: () => names.filter((s) => s.log.length > 0) };
}
