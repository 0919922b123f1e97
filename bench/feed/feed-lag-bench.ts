/**
 * `npm run bench:feed`: how long a page committed in PostgreSQL takes to become searchable in a Lantern
 * server's search copy (issue 28's target: p99 <= 2 s), and how fast a copy is built from nothing. On a throwaway
 * cluster (test-support/postgres.ts):
 *  1. preload: `--pages` pages written into PostgreSQL, each with the link targets of its `--links` links (as the
 *     crawler writes them: new targets inserted, known ones updated with a changed anchor text), then the copy
 *     built from them by the real feed (server/search-copy/search-feed.ts) as after a lost DATA_DIR: pages/s of
 *     the build;
 *  2. lag, LISTEN (as `npm start` runs it): a writer commits `--batch` pages (and their link targets) per transaction every
 *     `--interval` ms, `--batches` times; each page's lag runs from just before its COMMIT is sent (so a
 *     slow commit counts against the feed) to the moment its unique word matches in the copy's FTS5 index,
 *     checked after every chunk the feed applies (the title index has been refreshed by then too);
 *  3. the same with LISTEN off: the 1 s poll alone, the fallback.
 * Prints p50/p90/p99/max of each run; the figures go into docs/benchmarks.md by hand.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { readPgIdentity } from '../../db/pg/pg-change-feed.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { openSearchCopy, type SearchCopy } from '../../db/search-copy.ts';
import { SearchFeed } from '../../server/search-copy/search-feed.ts';
import { SearchService } from '../../server/search/search-service.ts';
import { startTestPostgres } from '../../test-support/postgres.ts';
import { waitFor } from '../../test-support/wait-for.ts';

const USAGE = 'usage: npm run bench:feed -- [--pages 20000] [--batches 300] [--batch 20] [--interval 50] [--links 10]';

const FILLER =
  'the quiet river runs past old stone walls where gardens grow in summer light and people walk slowly ' +
  'through narrow streets to the market near the harbour while boats wait for the evening tide ';

/** A page's searchable text: about 2 KB of prose with the page's own word in it. */
function body(i: number): string {
  return `${FILLER.repeat(5)} feedtok${i} ${FILLER.repeat(5)}`;
}

const INSERT = `INSERT INTO pages (url, final_url, origin, host, status, fetched_at, title, body)
  SELECT 'http://bench' || (i % 50) || '.test/p' || i, 'http://bench' || (i % 50) || '.test/p' || i,
    'http://bench' || (i % 50) || '.test', 'bench' || (i % 50) || '.test', 200, 1, 'Page ' || i, $3 || i || ' ' || $4
  FROM generate_series($1::int, $2::int) AS i`;

/** Writes pages `from`..`to` in one statement (the preload and each timed batch). */
async function writePages(db: pg.ClientBase | pg.Pool, from: number, to: number): Promise<void> {
  const [head, tail] = body(0).split('feedtok0');
  await db.query(INSERT, [from, to, `${head}feedtok`, tail]);
}

// Page i links to the pages i-1 .. i-links: each target counted once per statement (ON CONFLICT may touch a row
// once), its anchors rewritten at each update, so each update moves its anchors_fts entry in the copy.
const LINKS = `INSERT INTO link_targets (url, inlinks, sources, anchors, anchor_counts)
  SELECT 'http://bench' || (t % 50) || '.test/p' || t, n, '\\x', 'anchor ' || t || ' seen ' || n, n::text
  FROM (SELECT i - k AS t, count(*)::int AS n
        FROM generate_series($1::int, $2::int) AS i, generate_series(1, $3::int) AS k
        WHERE i - k >= 1 GROUP BY i - k) AS v
  ON CONFLICT (url) DO UPDATE SET inlinks = link_targets.inlinks + excluded.inlinks,
    anchors = 'anchor ' || split_part(excluded.url, '/p', 2) || ' seen ' || (link_targets.inlinks + excluded.inlinks),
    anchor_counts = (link_targets.inlinks + excluded.inlinks)::text`;

/** Writes the link targets of pages `from`..`to` (`links` links each; none when 0). */
async function writeLinks(db: pg.ClientBase | pg.Pool, from: number, to: number, links: number): Promise<void> {
  if (links > 0) await db.query(LINKS, [from, to, links]);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** p50/p90/p99/max of `lags` (ms), formatted. */
function summary(lags: number[]): string {
  const s = [...lags].sort((a, b) => a - b);
  const f = (n: number) => `${n.toFixed(0)} ms`;
  return `n=${s.length} p50 ${f(percentile(s, 50))}, p90 ${f(percentile(s, 90))}, p99 ${f(percentile(s, 99))}, max ${f(s.at(-1) ?? Number.NaN)}`;
}

/**
 * Runs a feed on `copy` while `work` runs and until `done()` says so (asked every 20 ms: the figures are taken in
 * `onApplied`, after each chunk, as search-side.ts wires it, not by this wait).
 */
async function runFeed(
  url: string,
  pool: pg.Pool,
  copy: SearchCopy,
  search: SearchService,
  listen: boolean,
  onApplied: () => void,
  work: () => Promise<void>,
  done: () => boolean,
): Promise<void> {
  const feed = new SearchFeed({
    url,
    pool,
    copy,
    listen,
    log: { info: () => undefined, warn: (m) => process.stderr.write(`${m}\n`) },
    onApplied: () => {
      search.refresh();
      onApplied();
    },
  });
  feed.start();
  await work();
  await waitFor(done, { timeoutMs: 600_000, intervalMs: 20, message: 'the feed to deliver every page' });
  await feed.stop();
}

/** The timed writer and the lag of every page it wrote (see the file comment, step 2). */
async function lagRun(
  env: { url: string; pool: pg.Pool; copy: SearchCopy; search: SearchService },
  first: number,
  opts: { batches: number; batch: number; interval: number; links: number; listen: boolean },
): Promise<number[]> {
  const sentAt = new Map<number, number>();
  const lags: number[] = [];
  const matches = env.copy.db.prepare<[string], number>('SELECT rowid FROM pages_fts WHERE pages_fts MATCH ?').pluck();
  const total = opts.batches * opts.batch;
  const check = () => {
    const t = performance.now();
    for (const [i, sent] of sentAt) {
      if (matches.get(`feedtok${i}`) !== undefined) {
        lags.push(t - sent);
        sentAt.delete(i);
      }
    }
  };
  const writer = new pg.Client({ connectionString: env.url });
  await writer.connect();
  const work = async () => {
    const start = performance.now();
    for (let b = 0; b < opts.batches; b++) {
      const from = first + b * opts.batch;
      const to = from + opts.batch - 1;
      await writer.query('BEGIN');
      await writePages(writer, from, to);
      await writeLinks(writer, from, to, opts.links);
      const sent = performance.now();
      for (let i = from; i <= to; i++) sentAt.set(i, sent);
      await writer.query('COMMIT');
      const next = start + (b + 1) * opts.interval;
      const wait = next - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
  try {
    await runFeed(env.url, env.pool, env.copy, env.search, opts.listen, check, work, () => lags.length === total);
  } finally {
    await writer.end();
  }
  return lags;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      pages: { type: 'string', default: '20000' },
      batches: { type: 'string', default: '300' },
      batch: { type: 'string', default: '20' },
      interval: { type: 'string', default: '50' },
      links: { type: 'string', default: '10' },
    },
  });
  const pages = Number(values.pages);
  const opts = {
    batches: Number(values.batches),
    batch: Number(values.batch),
    interval: Number(values.interval),
    links: Number(values.links),
  };
  if (![pages, opts.batches, opts.batch, opts.interval].every((n) => Number.isInteger(n) && n > 0)) {
    throw new Error(`feed-lag-bench: every option but --links is a positive whole number; ${USAGE}`);
  }
  if (!Number.isInteger(opts.links) || opts.links < 0) {
    throw new Error(`feed-lag-bench: --links is a whole number, 0 or more; ${USAGE}`);
  }
  const cluster = await startTestPostgres();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-feed-bench-'));
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 2 });
  try {
    await migratePg(pool);
    console.log(`feed: ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`);
    console.log(
      `feed: preload ${pages.toLocaleString('en')} pages of ~2 KB into PostgreSQL, ${opts.links} links each to earlier pages`,
    );
    for (let from = 1; from <= pages; from += 5000) {
      await writePages(pool, from, Math.min(pages, from + 4999));
      await writeLinks(pool, from, Math.min(pages, from + 4999), opts.links);
    }
    const targets = Number((await pool.query('SELECT count(*) AS n FROM link_targets')).rows[0]?.n ?? 0);

    const { copy } = openSearchCopy(dataDir, await readPgIdentity(pool));
    const search = new SearchService(copy.db);
    const env = { url, pool, copy, search };
    const started = performance.now();
    await runFeed(
      url,
      pool,
      copy,
      search,
      true,
      () => undefined,
      async () => undefined,
      () => copy.caughtUp,
    );
    const buildS = (performance.now() - started) / 1000;
    console.log(
      `feed: built the copy from nothing: ${pages.toLocaleString('en')} pages and ${targets.toLocaleString('en')} link targets in ${buildS.toFixed(1)} s (${Math.round(pages / buildS).toLocaleString('en')} pages/s)`,
    );
    const shape = `${opts.batches} commits of ${opts.batch} pages with ${opts.links} links each, one every ${opts.interval} ms`;
    const listened = await lagRun(env, pages + 1, { ...opts, listen: true });
    console.log(`feed: lag with LISTEN (${shape}): ${summary(listened)}`);
    const polled = await lagRun(env, pages + 1 + opts.batches * opts.batch, { ...opts, listen: false });
    console.log(`feed: lag with the 1 s poll alone (${shape}): ${summary(polled)}`);
    search.close();
    copy.close();
  } finally {
    await pool.end();
    cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
