/**
 * The relevance part of `npm run bench:search`: the real Python and Git documentation (Debian's
 * python3-doc and git-doc packages, as installed under /usr/share/doc) served by the loopback test
 * web, crawled by the real crawler, then searched with the queries of relevance-queries.ts, each with
 * the page a person means. Scored as MRR (reciprocal rank of the first page meant, within the top 10)
 * and top-3 hits, for the ranking before this work (no link signals) and with each link signal added.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { SearchService } from '../../server/search/search-service.ts';
import type { RankingOptions } from '../../server/search/search-service.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';
import { startTestWeb } from '../../test-support/test-web.ts';
import type { SiteSpec } from '../../test-support/test-web.ts';
import { QUERY_SETS } from './relevance-queries.ts';
import type { Judged } from './relevance-queries.ts';

const PYTHON_DOCS = '/usr/share/doc/python3.11/html';
const GIT_DOCS = '/usr/share/doc/git-doc';

/** One ranking configuration measured. */
interface Config {
  name: string;
  ranking: RankingOptions;
}

const CONFIGS: Config[] = [
  {
    name: 'before: no link signals (inlinks as the crawler counted links seen)',
    ranking: { anchors: false, linkInlinks: false, linkDensity: false },
  },
  {
    name: '+ inlinks as distinct pages linking from their content',
    ranking: { anchors: false, linkInlinks: true, linkDensity: false },
  },
  {
    name: '+ link density (pages mostly links ranked lower)',
    ranking: { anchors: false, linkInlinks: false, linkDensity: true },
  },
  { name: '+ anchor text', ranking: { anchors: true, linkInlinks: false, linkDensity: false } },
  { name: 'after: all three', ranking: { anchors: true, linkInlinks: true, linkDensity: true } },
];

/** Scores of one configuration on one query set. */
export interface SetScore {
  set: string;
  queries: number;
  mrr: number;
  top3: number;
  misses: string[];
}

/** What the relevance run found. */
export interface RelevanceReport {
  pages: number;
  crawlS: number;
  scores: Array<{ config: string; sets: SetScore[] }>;
}

/** Every .html file under `dir` (not in folders starting with '_'), as site paths → contents. */
function htmlFiles(dir: string, base = dir, out: Record<string, string> = {}): Record<string, string> {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (!name.startsWith('_')) htmlFiles(full, base, out);
    } else if (name.endsWith('.html')) {
      out[`/${path.relative(base, full).split(path.sep).join('/')}`] = readFileSync(full, 'utf8');
    }
  }
  return out;
}

/** MRR and top-3 of `service` on `queries` (a result counts when its path ends with one of the meant paths). */
function score(service: SearchService, set: string, queries: readonly Judged[]): SetScore {
  let rr = 0;
  let top3 = 0;
  const misses: string[] = [];
  for (const q of queries) {
    const results = service.search(q.query, { limit: 10, offset: 0 }).results;
    const at = results.findIndex((r) => q.meant.some((m) => new URL(r.url).pathname.endsWith(`/${m}`)));
    if (at >= 0) rr += 1 / (at + 1);
    if (at >= 0 && at < 3) top3++;
    else misses.push(`${q.query} (${at < 0 ? 'not in top 10' : `#${at + 1}`})`);
  }
  return { set, queries: queries.length, mrr: rr / queries.length, top3: top3 / queries.length, misses };
}

/** Crawls the documentation and scores every configuration; undefined (with the reason printed) when the docs are not installed. */
export async function runRelevance(): Promise<RelevanceReport | undefined> {
  if (!existsSync(PYTHON_DOCS) || !existsSync(GIT_DOCS)) {
    console.log(
      `relevance: skipped, the documentation is not installed (apt-get install python3-doc git-doc puts it in ${PYTHON_DOCS} and ${GIT_DOCS})`,
    );
    return undefined;
  }
  const python: SiteSpec = { pages: htmlFiles(PYTHON_DOCS) };
  const git: SiteSpec = {
    pages: Object.fromEntries(Object.entries(htmlFiles(GIT_DOCS)).filter(([p]) => !p.includes('/', 1))),
  };
  const web = await startTestWeb([python, git]);
  const crawler = startCrawler({ CRAWL_DELAY_MS: '0', CRAWL_WORKERS: '2' });
  try {
    const started = performance.now();
    const [py, gi] = web.sites;
    crawler.addSeed(py.url('/index.html'), { depth: 6 });
    crawler.addSeed(gi.url('/git.html'), { depth: 3 });
    await crawler.waitIdle({ minDone: 100, timeoutMs: 600_000 });
    const crawlS = (performance.now() - started) / 1000;
    const pages = (crawler.db.prepare('SELECT count(*) AS n FROM pages WHERE indexed = 1').get() as { n: number }).n;
    console.log(`relevance: crawled ${pages} pages of the Python and Git documentation in ${crawlS.toFixed(1)} s`);
    const scores = [];
    for (const c of CONFIGS) {
      const service = new SearchService(crawler.db, { ranking: c.ranking });
      while (!service.ready) {
        service.refresh();
        await new Promise((resolve) => setImmediate(resolve));
      }
      const sets = Object.entries(QUERY_SETS).map(([name, queries]) => score(service, name, queries));
      service.close();
      console.log(
        `  ${c.name}: ${sets.map((s) => `${s.set} MRR ${s.mrr.toFixed(3)}, top-3 ${(s.top3 * 100).toFixed(0)} %`).join('; ')}`,
      );
      scores.push({ config: c.name, sets });
    }
    return { pages, crawlS, scores };
  } finally {
    await crawler.close();
    await web.close();
  }
}

/** The report as markdown for docs/benchmarks.md. */
export function relevanceMarkdown(r: RelevanceReport): string {
  const sets = r.scores[0].sets.map((s) => s.set);
  const rows = [
    `| ranking | ${sets.map((s) => `${s}: MRR | ${s}: top-3`).join(' | ')} |`,
    `|---|${sets.map(() => '---:|---:').join('|')}|`,
    ...r.scores.map(
      (c) =>
        `| ${c.config} | ${c.sets.map((s) => `${s.mrr.toFixed(3)} | ${(s.top3 * 100).toFixed(0)} %`).join(' | ')} |`,
    ),
  ];
  const after = r.scores[r.scores.length - 1];
  const misses = after.sets.map((s) => `${s.set}: ${s.misses.length === 0 ? 'none' : s.misses.join('; ')}`).join('. ');
  return `${rows.join('\n')}\n\n${r.pages} pages crawled in ${r.crawlS.toFixed(1)} s. Not in the top 3 with all signals: ${misses}.`;
}
