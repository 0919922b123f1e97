/**
 * Search on any server (issue 29): Lantern servers on one PostgreSQL, each with its own DATA_DIR and so its own
 * search copy fed by the change feed, answer the same. Two real server processes start together on one throwaway
 * cluster; the crawl goes through the first (seeds added there, one site at a time), then the record changes the
 * ways it can: a re-crawl rewrites a site's pages (one with new words), a seed removed through the second server
 * retires its pages, and a page row deleted by hand leaves a tombstone. Once both copies have caught up (their
 * cursors past every finished change, read from their files; no sleep), a set of searches and suggestions answer the
 * same on both, `tookMs` and `score` aside (see `answer`): urls, order, titles, snippets, totals. A third server started afterwards on an empty
 * DATA_DIR builds its copy from the feed's start and answers the same too. Every answer is also checked against the
 * record, so a feed that loses a kind of change on every server alike still fails.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { openPgPool } from '../../db/pg/pool.ts';
import { type AppProcess, startAppProcess } from '../../test-support/app-process.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { copyCaughtUp } from '../../test-support/search-copies.ts';
import { type TestSite, type TestWeb, startTestWeb } from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';

let cluster: TestPostgres;
let web: TestWeb;
let pool: pg.Pool;
let url: string;
const servers: AppProcess[] = [];
const dirs: string[] = [];

/** The same text on one page of each site: their bm25 scores tie, so only a stable tie-break orders them alike. */
const TIE = '<p>All about the wombat and the burrow it digs under the field.</p>';

const page = (title: string, body: string) => `<!doctype html><html lang="en"><title>${title}</title><body>${body}`;

before(async () => {
  cluster = await startTestPostgres();
  url = await cluster.createDatabase();
  pool = openPgPool(url, { max: 2, warn: () => undefined });
  web = await startTestWeb([
    {
      pages: {
        '/': page(
          'Python notes',
          '<h1>Python notes</h1><p>Notes on the language.</p><a href="/lists">list comprehensions</a> <a href="/dicts">dictionaries</a> <a href="/wombat">field notes</a> <a href="/changing">release notes</a>',
        ),
        '/lists': page(
          'List comprehensions',
          '<h1>List comprehensions</h1><p>A list comprehension builds a new list from an iterable in one expression.</p><h2>Sorting</h2><p>How do I sort a list in reverse order? Pass reverse to sorted.</p>',
        ),
        '/dicts': page(
          'Dictionaries',
          '<h1>Dictionaries</h1><p>A dictionary maps keys to values; the quick brown fox of mappings.</p><a href="/lists">list comprehensions</a>',
        ),
        '/wombat': page('Field notes one', TIE),
        '/changing': page('Release notes', '<h1>Release notes</h1><p>Version one of the interpreter.</p>'),
      },
    },
    {
      pages: {
        '/': page(
          'Git notes',
          '<h1>Git notes</h1><a href="/rebase">undo a rebase</a> <a href="/wombat">field notes</a> <a href="/stash">stash changes</a>',
        ),
        '/rebase': page(
          'Rebasing branches',
          '<h1>Rebasing branches</h1><p>How do I undo a rebase? Use the reflog to find the commit before the rebase, then reset to it.</p>',
        ),
        '/wombat': page('Field notes two', TIE),
        '/stash': page('Stash', '<h1>Stash</h1><p>git stash saves your uncommitted changes for later.</p>'),
      },
    },
    {
      pages: {
        '/': page('Marsupials', '<h1>Marsupials</h1><a href="/koala">the koala</a> <a href="/wombat">field notes</a>'),
        '/koala': page('Koala', '<h1>Koala</h1><p>The koala sleeps in a eucalyptus tree for most of the day.</p>'),
        '/wombat': page('Field notes three', TIE),
      },
    },
    {
      pages: {
        '/': page('Old zoo', '<h1>Old zoo</h1><a href="/koala">koala</a> <a href="/wombat">field notes</a>'),
        '/koala': page('Koala keeper', '<p>A koala keeper feeds the koala eucalyptus leaves.</p>'),
        '/wombat': page('Field notes four', TIE),
      },
    },
  ]);
});

after(async () => {
  for (const s of servers) s.killGroup();
  await Promise.all(servers.map((s) => s.exited));
  await pool?.end();
  await web?.close();
  cluster?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A Lantern server on the shared database, with a DATA_DIR of its own. */
async function startServer(name: string): Promise<AppProcess> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `lantern-two-servers-${name}-`));
  dirs.push(dataDir);
  const server = await startAppProcess({
    dataDir,
    env: { DATABASE_URL: url, CRAWL_DELAY_MS: '0', CRAWL_WORKERS: '1', CRAWL_NODE_ID: `node-${name}` },
    healthTimeoutMs: 60_000,
  });
  servers.push(server);
  return server;
}

/** The site's urls as PostgreSQL holds them: searchable (indexed, not retired) or not. */
async function recordUrls(site: TestSite, searchable: boolean): Promise<string[]> {
  const found = await pool.query<{ url: string }>(
    `SELECT url FROM pages WHERE host = $1 AND (indexed = 1 AND removed = 0) = $2 ORDER BY url`,
    [site.host, searchable],
  );
  return found.rows.map((r) => r.url);
}

/** Waits until PostgreSQL holds each of `site`'s `paths` with `check` true of its body, and nothing of it is queued. */
async function untilStored(site: TestSite, paths: string[], check = (_body: string) => true) {
  const want = paths.map((p) => site.url(p)).sort();
  let seen = '';
  await waitFor(
    async () => {
      const found = await pool.query<{ url: string; body: string }>(
        'SELECT url, body FROM pages WHERE host = $1 AND indexed = 1 ORDER BY url',
        [site.host],
      );
      const ok = found.rows.filter((r) => check(r.body)).map((r) => r.url);
      const open = await pool.query<{ url: string; state: string }>(
        "SELECT url, state FROM frontier WHERE origin = $1 AND state IN ('queued', 'leased') ORDER BY url",
        [site.origin],
      );
      seen = `stored ${ok.join(', ')}; open ${open.rows.map((r) => `${r.url} ${r.state}`).join(', ')}`;
      return JSON.stringify(ok) === JSON.stringify(want) && open.rows.length === 0;
    },
    { timeoutMs: 60_000, intervalMs: 100, message: () => `${site.origin} crawled (${seen})`, progress: () => seen },
  );
}

/** Waits until the copy of each server has caught up with PostgreSQL and its title index is built. */
async function untilCaughtUp(...list: AppProcess[]): Promise<void> {
  for (const s of list) {
    await waitFor(
      async () =>
        (await copyCaughtUp(s.dataDir, pool)) === true &&
        (await s.getJson<{ searchReady: boolean }>('/api/status')).searchReady,
      { timeoutMs: 60_000, intervalMs: 50, message: `the search copy of ${s.baseURL} to catch up with PostgreSQL` },
    );
  }
}

/**
 * What a person sees of a search or a suggestion: the answer as JSON, `tookMs` left out, and each result's `score`
 * too: the title index (MiniSearch) keeps counting a discarded or replaced entry in its term statistics until it
 * vacuums, so a server that followed a re-crawl scores a little differently from one that built its index afresh
 * (docs/scaling.md, "The change feed"). Everything else is compared: urls, order, titles, snippets, totals.
 */
async function answer(server: AppProcess, pathAndQuery: string): Promise<Record<string, unknown>> {
  const body = await server.getJson<Record<string, unknown>>(pathAndQuery);
  const { tookMs: _took, ...rest } = body;
  if (Array.isArray(rest.results)) {
    rest.results = (rest.results as Array<Record<string, unknown>>).map(({ score: _score, ...r }) => r);
  }
  return rest;
}

/**
 * The searches and suggestions compared across servers: keywords, a phrase, a prefix, a question, pages, filters.
 * No suggestion whose completions mix words of re-crawled pages with others': the title index weighs a completion by
 * the entries holding it, discarded ones counted until it vacuums (see `answer`), so those may come in another order.
 */
function queries(sites: TestSite[]): string[] {
  const search = (q: string, extra = '') => `/api/search?q=${encodeURIComponent(q)}${extra}`;
  return [
    search('wombat burrow'),
    search('wombat', '&limit=2'),
    search('wombat', '&limit=2&offset=2'),
    search('field notes'),
    search('list comprehension'),
    search('"quick brown fox"'),
    search('rebas'),
    search('how do I undo a rebase'),
    search('how do i sort a list in reverse'),
    search('koala'),
    search('label:zoo koala'),
    search('eucalyptus'),
    search('interpreter'),
    search('asyncio'),
    search('uncommitted'),
    search('pyhton'),
    ...sites.map((s) => search(`site:${s.host}`)),
    '/api/suggest?q=wom',
    '/api/suggest?q=field%20no',
    '/api/suggest?q=ko',
    '/api/suggest?q=eu',
  ];
}

/** The urls of a search's results. */
const urlsOf = (a: Record<string, unknown>) => (a.results as Array<{ url: string }>).map((r) => r.url);

test('servers on one PostgreSQL answer every search alike, also one that built its copy later from the feed', {
  timeout: 300_000,
}, async () => {
  const [python, git, zoo, oldZoo] = web.sites;
  const [first, second] = await Promise.all([startServer('a'), startServer('b')]);

  // The crawl, through the first server, one site at a time (so pages are first stored in a known order).
  const seedIds: number[] = [];
  for (const [site, labels] of [
    [python, []],
    [git, []],
    [zoo, ['zoo']],
    [oldZoo, ['zoo']],
  ] as const) {
    const added = await first.postJson<{ seed: { id: number } }>('/api/seeds', {
      url: site.url('/'),
      depth: 2,
      labels,
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    seedIds.push(added.body.seed.id);
    await untilStored(
      site,
      site === python
        ? ['/', '/lists', '/dicts', '/wombat', '/changing']
        : site === git
          ? ['/', '/rebase', '/wombat', '/stash']
          : ['/', '/koala', '/wombat'],
    );
  }

  // A re-crawl that changes a page: every page of the first site is written again (after the others).
  python.setPage('/changing', page('Release notes', '<h1>Release notes</h1><p>Version two adds asyncio.</p>'));
  const again = await first.postJson('/api/seeds', { url: python.url('/'), depth: 2 });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  await untilStored(python, ['/changing'], (body) => body.includes('asyncio'));
  await untilStored(python, ['/', '/lists', '/dicts', '/wombat', '/changing']);

  // A seed removed through the second server: its pages are retired in the record (written, out of search).
  const removed = await fetch(`${second.baseURL}/api/seeds/${seedIds[3]}`, { method: 'DELETE' });
  assert.equal(removed.status, 200, await removed.text());
  await waitFor(async () => (await recordUrls(oldZoo, true)).length === 0, {
    timeoutMs: 60_000,
    message: "the removed seed's pages retired in PostgreSQL",
  });
  // A page row deleted by hand: the feed carries it as a tombstone.
  const deleted = await pool.query('DELETE FROM pages WHERE url = $1', [git.url('/stash')]);
  assert.equal(deleted.rowCount, 1);

  await untilCaughtUp(first, second);
  const list = queries(web.sites);
  const fromFirst = new Map<string, Record<string, unknown>>();
  for (const q of list) {
    const [a, b] = [await answer(first, q), await answer(second, q)];
    assert.deepEqual(b, a, `${q}: the second server answers as the first`);
    fromFirst.set(q, a);
  }

  // The answers are the record's, not merely alike: updates, retirements and the deletion reached both copies.
  const search = (q: string) => fromFirst.get(`/api/search?q=${encodeURIComponent(q)}`) as Record<string, unknown>;
  assert.deepEqual(urlsOf(search('asyncio')), [python.url('/changing')], 'the re-crawled words are found');
  assert.deepEqual(urlsOf(search('interpreter')), [], 'the replaced words are gone');
  assert.deepEqual(urlsOf(search('uncommitted')), [], 'the deleted page is gone');
  assert.deepEqual(urlsOf(search('eucalyptus')), [zoo.url('/koala')], "the removed seed's koala keeper is gone");
  assert.deepEqual(
    urlsOf(search('wombat burrow')).sort(),
    [python, git, zoo].map((s) => s.url('/wombat')).sort(),
    'the three live tie pages',
  );
  assert.equal(urlsOf(search('"quick brown fox"')).length, 1, 'the phrase finds its page');
  assert.equal(urlsOf(search('how do I undo a rebase'))[0], git.url('/rebase'), 'the question finds its answer');
  for (const site of web.sites) {
    assert.deepEqual(
      urlsOf(search(`site:${site.host}`)).sort(),
      await recordUrls(site, true),
      `site:${site.host} lists what PostgreSQL holds searchable`,
    );
  }

  // A third server, started now on an empty DATA_DIR: its copy is built from the feed's start.
  const third = await startServer('c');
  await untilCaughtUp(third);
  for (const q of list)
    assert.deepEqual(await answer(third, q), fromFirst.get(q), `${q}: the third server answers as the first`);
});
