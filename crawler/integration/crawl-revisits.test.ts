/**
 * Revisits that cost the site little, through the real cluster and real site, judged from the site's own
 * request log and from what the primary recorded in its SQLite file as each request came in. With a refresh
 * every 2 s (CRAWL_REFRESH) and a ceiling of 4 periods (CRAWL_REVISIT_MAX): a page that stays the same has
 * its interval doubled at each visit (1, 2, then 4 periods); once it has changed, its interval halves; a page
 * that changes every time is asked for at every refresh, and so is the seed's own page.
 *
 * Which refresh asks for a page is the primary's decision by its own clock (crawler/frontier/revisit.ts): a
 * page is due once its interval, counted in cycles (the time since the seed's previous refresh, taken between
 * 1 and 1.5 periods), less half a cycle, has passed since the start of the crawl that last asked for it. On an
 * idle machine every cycle is about as long, and the stable page is asked for at the 1st, 3rd and 7th refresh,
 * then, changed at the 7th, at the 9th. A loaded machine makes cycles uneven (one refresh seconds late, the
 * next on time), and the same rule then moves a visit to a neighbouring refresh: counting refreshes would call
 * a correct crawler wrong. So the test reads, as each request comes in, the start of the crawl it belongs to
 * (the seed page's checked_at, which the refresh sets before it queues anything) and the interval the page
 * held when the refresh judged it, and checks that every refresh asked for exactly the pages due then.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb } from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';

const HTML = { 'content-type': 'text/html; charset=utf-8' };
const PERIOD_MS = 2000;
const CEILING_MS = 8000;

/** A page's revisit state as the primary recorded it (db/revisits.ts): its interval and the crawl start it counts from. */
interface Judged {
  intervalMs: number;
  checkedAt: number;
}

/** What the primary had recorded when a request came in. */
interface Arrival {
  path: string;
  /** The start of the crawl the request belongs to (the seed page's checked_at); undefined before the first crawl's. */
  crawlStart: number | undefined;
  /** The stable page's state then (undefined before its first visit). */
  stable: Judged | undefined;
  /** The changing page's state then. */
  changing: Judged | undefined;
}

/**
 * Whether the refresh that started at `start` (the previous one at `previous`) was due to ask for a page whose
 * state was `st`: the rule of crawler/frontier/revisit.ts, stated here on its own.
 */
function dueByRule(st: Judged | undefined, start: number, previous: number): boolean {
  if (st === undefined) return true;
  const cycle = Math.min(1.5 * PERIOD_MS, Math.max(PERIOD_MS, start - previous));
  return st.checkedAt + (st.intervalMs / PERIOD_MS) * cycle <= start + cycle / 2;
}

test('revisit intervals grow while a page stays, shrink once it changed; a page that changes is asked for each time', {
  timeout: 120_000,
}, async () => {
  const arrivals: Arrival[] = [];
  let stableVisits = 0;
  let versions = 0;
  const web = await startTestWeb([
    {
      pages: {
        '/': {
          handler: (_req, res) => {
            arrive('/');
            res
              .writeHead(200, HTML)
              .end('<title>Home</title><a href="/stable">stable</a> <a href="/changing">changing</a>');
          },
        },
        '/stable': {
          handler: (_req, res) => {
            arrive('/stable');
            // The same words at the first three visits; new words from the fourth on (found changed at the
            // fourth, the same again at the fifth).
            const words = ++stableVisits <= 3 ? 'the same words every time' : 'new words, at last';
            res.writeHead(200, HTML).end(`<title>Stable</title><p>${words}</p>`);
          },
        },
        '/changing': {
          handler: (_req, res) => {
            arrive('/changing');
            res.writeHead(200, HTML).end(`<title>Changing</title><p>version ${++versions}</p>`);
          },
        },
      },
    },
  ]);
  const site = web.sites[0];
  const crawler = startCrawler({ CRAWL_REFRESH: '2s', CRAWL_REVISIT_MAX: '8s' });
  const stateOf = crawler.db.prepare<[string], Judged>(
    'SELECT interval_ms AS intervalMs, checked_at AS checkedAt FROM revisits WHERE url = ?',
  );
  /** Records what the primary had recorded as a request to `path` came in (read from its SQLite file). */
  function arrive(path: string): void {
    arrivals.push({
      path,
      crawlStart: stateOf.get(site.url('/'))?.checkedAt,
      stable: stateOf.get(site.url('/stable')),
      changing: stateOf.get(site.url('/changing')),
    });
  }
  const to = (path: string) => arrivals.filter((a) => a.path === path);
  try {
    crawler.addSeed(site.url('/'), { depth: 1 });
    // Five visits of the stable page, and the changing page asked for in the crawl of the fifth.
    await waitFor(
      () => {
        const fifth = to('/stable')[4];
        return fifth !== undefined && to('/changing').some((a) => a.crawlStart === fifth.crawlStart);
      },
      {
        timeoutMs: 90_000,
        message: () =>
          `five visits of the stable page (requests so far: ${arrivals.map((a) => `${a.path}@${a.crawlStart === undefined ? '-' : Math.round(a.crawlStart) % 100_000}`).join(' ')})`,
      },
    );
    const lastStart = to('/stable')[4].crawlStart!;
    const seen = arrivals.filter((a) => a.crawlStart === undefined || a.crawlStart <= lastStart);
    const home = seen.filter((a) => a.path === '/');
    const stable = seen.filter((a) => a.path === '/stable');
    const changing = seen.filter((a) => a.path === '/changing');
    // Each crawl's start as the primary recorded it: the first crawl's when its pages came in, each refresh's
    // when it asked for the seed's page.
    const starts = [...new Set(seen.flatMap((a) => (a.crawlStart === undefined ? [] : [a.crawlStart])))].sort(
      (a, b) => a - b,
    );
    const crawlIndex = (a: Arrival) => starts.indexOf(a.crawlStart!);

    assert.deepEqual(
      home.map((a) => a.crawlStart),
      [undefined, ...starts.slice(1)],
      "the seed's page once at every refresh",
    );
    assert.deepEqual(
      changing.map((a) => a.crawlStart),
      starts,
      'a page that changes each time is asked for at every refresh',
    );
    assert.deepEqual(
      changing.map((a) => a.changing?.intervalMs),
      [undefined, ...starts.slice(1).map(() => PERIOD_MS)],
      'its interval stays at the refresh period',
    );
    assert.deepEqual(
      stable.map((a) => a.stable?.intervalMs),
      [undefined, PERIOD_MS, 2 * PERIOD_MS, CEILING_MS, 2 * PERIOD_MS],
      'unchanged: 1, 2 then 4 periods (the ceiling); changed at the 4th visit: halved to 2 periods',
    );
    // Each refresh judged the stable page by the interval it held then, counted from the crawl that last asked for it.
    const judged = home.slice(1).map((h) => h.stable);
    for (const [k, st] of judged.entries()) {
      const lastAsked = stable.filter((a) => crawlIndex(a) <= k).at(-1)!;
      assert.equal(st?.checkedAt, lastAsked.crawlStart, `refresh ${k + 1}: counted from the crawl that last asked`);
    }
    const cycles = starts.slice(1).map((t, i) => Math.round(t - starts[i]));
    const asked = starts.map((t) => stable.some((a) => a.crawlStart === t));
    const due = [true, ...judged.map((st, i) => dueByRule(st, starts[i + 1], starts[i]))];
    console.log(
      `# crawl-revisits: the stable page asked for at crawls ${stable.map(crawlIndex).join(', ')}; cycles ${cycles.join(', ')} ms`,
    );
    assert.deepEqual(
      asked,
      due,
      `each refresh asked for the stable page exactly when due by its interval (cycles ${cycles.join(', ')} ms)`,
    );
    assert.ok(stable.length < starts.length, 'the stable page was left alone at some refreshes');
  } finally {
    await crawler.close();
    await web.close();
  }
});
