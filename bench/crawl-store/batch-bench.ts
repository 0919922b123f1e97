/**
 * What one batch of the crawler primary's writes costs on each engine: `node --import tsx
 * bench/crawl-store/batch-bench.ts [--batches N]`. A realistic batch, in one transaction of the crawl store
 * (db/async-crawl-store.ts): 100 URLs finished, 20 pages stored with 50 links each (their link targets
 * written at the end), 500 new URLs added and 500 known ones touched. On SQLite (a DATA_DIR file) and on
 * PostgreSQL (a throwaway cluster on loopback, test-support/postgres.ts), twice there: with the batch
 * methods (addUrls, touchUrls) and with one addUrl / touchUrl per URL, to show what a round trip per intent
 * costs. Prints ms per batch (median, p90) and PostgreSQL's round trips per batch. Figures for the report;
 * run under the machine-wide lock: flock /tmp/lantern-bench.lock node --import tsx bench/crawl-store/batch-bench.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type AsyncCrawlStore, sqliteAsyncCrawlStore } from '../../db/async-crawl-store.ts';
import { openDatabase } from '../../db/open.ts';
import type { PageRecord } from '../../db/pages.ts';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { pgCrawlStore } from '../../db/pg/pg-crawl-store.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { startTestPostgres } from '../../test-support/postgres.ts';

const FINISHED = 100;
const PAGES = 20;
const LINKS = 50;
const ADDED = 500;
const TOUCHED = 500;
const T0 = 1_700_000_000_000;
const O = 'https://bench.example';

/** One engine's figures. */
interface Figures {
  engine: string;
  medianMs: number;
  p90Ms: number;
  roundTrips: number | null;
}

function page(url: string, seedId: number): PageRecord {
  return {
    url,
    finalUrl: url,
    origin: O,
    host: 'bench.example',
    seedId,
    status: 200,
    contentType: 'text/html',
    title: `Page ${url}`,
    description: 'A page of the benchmark',
    headings: ['Intro', 'Usage'],
    body: 'lorem ipsum dolor sit amet '.repeat(200),
    lang: 'en',
    canonical: null,
    fetchedAt: T0,
    etag: '"e"',
    lastModified: null,
    contentHash: 'h',
    noindex: false,
    nofollow: false,
    noarchive: false,
    nosnippet: false,
    indexed: true,
  };
}

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

/** Runs `batches` batches (after one unmeasured) on `store`, answering ms per batch. */
async function measure(store: AsyncCrawlStore, batches: number, oneByOne: boolean): Promise<number[]> {
  const seedId = (await store.seeds.upsertSeed({ url: `${O}/`, origin: O, depth: 5, scope: 'host' }, T0)).seed.id;
  const url = (kind: string, i: number) => ({ url: `${O}/${kind}/${i}`, origin: O, seedId, depth: 2, redirects: 0 });
  const toFinish: number[] = [];
  await store.transaction(async (tx) => {
    const made = await tx.frontier.addUrls(
      Array.from({ length: FINISHED * (batches + 1) }, (_, i) => url('leased', i)),
      T0,
    );
    for (const r of made) {
      toFinish.push(r.id);
      await tx.frontier.leaseUrl(r.id, 'bench', T0);
    }
    await tx.frontier.addUrls(
      Array.from({ length: TOUCHED }, (_, i) => url('known', i)),
      T0,
    );
  });
  const times: number[] = [];
  for (let b = 0; b <= batches; b++) {
    const started = performance.now();
    await store.transaction(async (tx) => {
      for (const id of toFinish.slice(b * FINISHED, (b + 1) * FINISHED))
        await tx.frontier.finishUrl(id, 'done', null, T0 + b);
      for (let p = 0; p < PAGES; p++) {
        // As the primary stores a page (IntentApplier's store-page): for its links, no id awaited.
        await tx.pages.storePage(
          page(`${O}/page/${b}/${p}`, seedId),
          Array.from({ length: LINKS }, (_, l) => ({
            url: `${O}/target/${(b * 7 + p * 13 + l) % 400}`,
            text: `link ${l}`,
          })),
        );
      }
      const added = Array.from({ length: ADDED }, (_, i) => url(`new/${b}`, i));
      const touched = Array.from({ length: TOUCHED }, (_, i) => `${O}/known/${i}`);
      if (oneByOne) {
        for (const u of added) await tx.frontier.addUrl(u, T0 + b);
        for (const u of touched) await tx.frontier.touchUrl(u);
      } else {
        await tx.frontier.addUrls(added, T0 + b);
        await tx.frontier.touchUrls(touched);
      }
    });
    if (b > 0) times.push(performance.now() - started); // the first batch warms statements and caches
  }
  return times;
}

const { values } = parseArgs({ options: { batches: { type: 'string', default: '30' } } });
const batches = Number(values.batches);
const out: Figures[] = [];

const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-batch-bench-'));
try {
  const db = openDatabase(dir);
  const times = await measure(sqliteAsyncCrawlStore(db), batches, false);
  out.push({ engine: 'sqlite', medianMs: percentile(times, 0.5), p90Ms: percentile(times, 0.9), roundTrips: null });
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const cluster = await startTestPostgres();
try {
  for (const oneByOne of [false, true]) {
    const pool = openPgPool(await cluster.createDatabase(), { max: 2 });
    await migratePg(pool);
    const trips: number[] = [];
    const times = await measure(
      pgCrawlStore(pool, { onTransaction: (r) => trips.push(r.roundTrips) }),
      batches,
      oneByOne,
    );
    out.push({
      engine: oneByOne ? 'postgres, addUrl/touchUrl one by one' : 'postgres, addUrls/touchUrls',
      medianMs: percentile(times, 0.5),
      p90Ms: percentile(times, 0.9),
      roundTrips: percentile(trips.slice(2), 0.5),
    });
    await pool.end();
  }
} finally {
  cluster.stop();
}

console.log(
  `one batch: ${FINISHED} finishUrl, ${PAGES} pages x ${LINKS} links, ${ADDED} new URLs, ${TOUCHED} known URLs touched; ${batches} batches each`,
);
for (const f of out) {
  console.log(
    `${f.engine.padEnd(38)} median ${f.medianMs.toFixed(1)} ms  p90 ${f.p90Ms.toFixed(1)} ms${f.roundTrips === null ? '' : `  round trips ${f.roundTrips}`}`,
  );
}
