/**
 * Where the crawler primary's flush time goes on each engine: `node --import tsx bench/crawl/store-profile.ts [--rounds=N] [--sides=sqlite,pg-off,pg-on]`
 * (under the lock: flock /tmp/lantern-bench.lock ...). Part 2's 1,500 pages (parsed beforehand) go through the
 * real Coordinator as in store-cost.ts, on SQLite and on PostgreSQL with fsync off and on (bench-postgres.ts),
 * in batches of 20 results, as the primary's 50 ms batches held at the crawl's pace. Each flush is timed (wall
 * clock, the primary's thread waiting included) and pgCrawlStore's onTransaction counts each transaction's round
 * trips; this process's CPU and the cluster's are read around the loop. Prints a table; a profile, not a figure
 * of the benchmark's record.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { Coordinator } from '../../crawler/coordination/coordinator.ts';
import type { ParsedPage } from '../../crawler/common/protocol.ts';
import type { CrawlStore } from '../../db/crawl-store.ts';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';
import { openDatabase } from '../../db/open.ts';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { pgCrawlStore } from '../../db/pg/pg-crawl-store.ts';
import { pgSeedStore } from '../../db/pg/pg-seeds.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { seedQueries } from '../../db/seeds.ts';
import { loadConfig } from '../../shared/config.ts';
import { generatedDepth } from '../../test-support/generate.ts';
import { benchPages, parseLikeWorker } from './bench-pages.ts';
import { simulateCrawl } from './store-cost.ts';
import { clusterCpuMs, startBenchPostgres } from './bench-postgres.ts';
import { summarize } from './bench-metrics.ts';
import pg from 'pg';

/**
 * Round trips by the statement whose answer they waited for (a named statement's name, else the first words
 * of the last statement of a simple-protocol message: the one the held writes travelled with, or COMMIT).
 */
const tally = new Map<string, number>();
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const first = args[0] as string | { name?: string; text?: string };
  const key =
    typeof first === 'string'
      ? (first.split(';\n').at(-1) ?? '').replace(/\s+/g, ' ').slice(0, 60)
      : (first.name ?? first.text?.slice(0, 60) ?? '?');
  tally.set(key, (tally.get(key) ?? 0) + 1);
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

const SITES = 50;
const SITE = { pagesPerSite: 30, bodyBytes: 30_000 };
const SLOTS = 8;
const ORIGINS = Array.from({ length: SITES }, (_, i) => `http://127.0.0.${i + 2}:8080`);

/** What one engine's run found. */
interface Profile {
  side: string;
  pages: number;
  flushes: number;
  flushWallMs: number[];
  roundTrips: number[];
  wallMs: number;
  cpuMs: number;
  clusterMs: number | undefined;
}

/** Drives the Coordinator over every page (store-cost.ts simulateCrawl), each flush timed. */
async function drive(store: CrawlStore, dataDir: string, parsed: ReadonlyMap<string, ParsedPage>) {
  const config = loadConfig({ DATA_DIR: dataDir, CRAWL_DELAY_MS: '0', CRAWL_ALLOW_PRIVATE: '1' });
  const coordinator = new Coordinator(store, config, 'store-profile');
  const t = Date.now();
  await coordinator.start(t);
  const { stored, flushWallMs, wallMs, cpuMs } = await simulateCrawl(coordinator, parsed, SLOTS, t);
  if (stored !== parsed.size) throw new Error(`store-profile: ${stored} pages stored, expected ${parsed.size}`);
  return { pages: stored, flushWallMs, wallMs, cpuMs };
}

async function onSqlite(parsed: ReadonlyMap<string, ParsedPage>): Promise<Profile> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-store-profile-'));
  const db = openDatabase(dir);
  try {
    const seeds = seedQueries(db);
    for (const origin of ORIGINS)
      seeds.upsertSeed({ url: `${origin}/`, origin, depth: generatedDepth(SITE.pagesPerSite), scope: 'host' }, 1);
    const r = await drive(sqliteCrawlStore(db), dir, parsed);
    return { side: 'SQLite', ...r, flushes: r.flushWallMs.length, roundTrips: [], clusterMs: undefined };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onPostgres(parsed: ReadonlyMap<string, ParsedPage>, fsync: boolean): Promise<Profile> {
  const cluster = await startBenchPostgres(fsync);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-store-profile-'));
  try {
    const pool = openPgPool(await cluster.createDatabase(), { max: 4 });
    try {
      await migratePg(pool);
      const seeds = pgSeedStore(pool);
      for (const origin of ORIGINS)
        await seeds.upsertSeed(
          { url: `${origin}/`, origin, depth: generatedDepth(SITE.pagesPerSite), scope: 'host' },
          1,
        );
      const roundTrips: number[] = [];
      const store = pgCrawlStore(pool, { onTransaction: (rep) => roundTrips.push(rep.roundTrips) });
      tally.clear();
      const c0 = clusterCpuMs(cluster.folder);
      const r = await drive(store, dir, parsed);
      const c1 = clusterCpuMs(cluster.folder);
      const top = [...tally].sort((a, b) => b[1] - a[1]).slice(0, 12);
      console.log(`store-profile: fsync ${fsync ? 'on' : 'off'}: round trips by the statement answered:`);
      for (const [k, n] of top) console.log(`  ${String(n).padStart(5)}  ${k}`);
      return {
        side: `PostgreSQL, fsync ${fsync ? 'on' : 'off'}`,
        ...r,
        flushes: r.flushWallMs.length,
        roundTrips,
        clusterMs: c0 !== undefined && c1 !== undefined ? c1 - c0 : undefined,
      };
    } finally {
      await pool.end();
    }
  } finally {
    cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const f2 = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(2));

const parsed = new Map(benchPages(ORIGINS, SITE).map((p) => [p.url, parseLikeWorker(p)!]));
const profiles: Profile[] = [];
const args = parseArgs({
  options: { rounds: { type: 'string', default: '2' }, sides: { type: 'string', default: 'sqlite,pg-off,pg-on' } },
}).values;
const ROUNDS = Number(args.rounds);
const SIDES = args.sides.split(',');
if (SIDES.some((s) => !['sqlite', 'pg-off', 'pg-on'].includes(s)))
  throw new Error(`store-profile: --sides takes sqlite, pg-off and pg-on, comma-separated, not ${args.sides}`);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('store-profile: --rounds must be a whole number from 1');
for (let round = 0; round < ROUNDS; round++) {
  const all: Array<[string, () => Promise<Profile>]> = [
    ['sqlite', () => onSqlite(parsed)],
    ['pg-off', () => onPostgres(parsed, false)],
    ['pg-on', () => onPostgres(parsed, true)],
  ];
  const order = all.filter(([name]) => SIDES.includes(name)).map(([, run]) => run);
  for (const run of round % 2 === 0 ? order : order.reverse()) {
    const load = os.loadavg()[0];
    const p = await run();
    profiles.push(p);
    console.log(`store-profile: round ${round + 1} ${p.side} done (load ${load.toFixed(1)} at start)`);
  }
}
console.log(
  '\n| side | pages | flushes | flush wall p50 / p95 / max | transactions | round trips per transaction p50 / max (sum over the run) | wall per page | this process CPU per page | cluster CPU per page |',
);
console.log('|---|---:|---:|---|---:|---|---:|---:|---:|');
for (const p of profiles) {
  const w = summarize(p.flushWallMs);
  const rt = p.roundTrips.length === 0 ? undefined : summarize(p.roundTrips);
  console.log(
    `| ${p.side} | ${p.pages} | ${p.flushes} | ${f2(w.p50)} / ${f2(w.p95)} / ${f2(w.max)} ms | ${p.roundTrips.length || 'n/a'} | ` +
      `${rt === undefined ? 'n/a' : `${rt.p50} / ${rt.max} (${rt.mean * rt.n})`} | ${f2(p.wallMs / p.pages)} ms | ${f2(p.cpuMs / p.pages)} ms | ` +
      `${f2(p.clusterMs === undefined ? undefined : p.clusterMs / p.pages)} ms |`,
  );
}
