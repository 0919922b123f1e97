/**
 * Fixtures for the SQLite-to-PostgreSQL copy's tests (db/pg/copy-from-sqlite.test.ts,
 * server/lantern-command.test.ts): a SQLite Lantern database written by the real query modules, and small
 * PostgreSQL helpers.
 */
import type pg from 'pg';
import { frontierQueries } from '../db/frontier.ts';
import { hostQueries, newHostRow } from '../db/hosts.ts';
import { linkTargetQueries } from '../db/link-targets.ts';
import { pageQueries } from '../db/pages.ts';
import { COPIED_TABLES } from '../db/pg/copy-from-sqlite.ts';
import { migratePg } from '../db/pg/migrate-pg.ts';
import { openPgPool } from '../db/pg/pool.ts';
import { seedLabelQueries } from '../db/seed-labels.ts';
import { seedQueries } from '../db/seeds.ts';
import { sessionQueries } from '../db/sessions.ts';
import { makePage, tempDatabase } from './test-corpus.ts';

/** A SQLite Lantern database with a little of everything, written as Lantern writes it. */
export function seededSqlite(): ReturnType<typeof tempDatabase> {
  const env = tempDatabase('copy');
  const db = env.db;
  const seeds = seedQueries(db);
  const ids: number[] = [];
  for (let i = 0; i < 30; i++) {
    ids.push(
      seeds.upsertSeed({ url: `http://s${i}.test/`, origin: `http://s${i}.test`, depth: 2, scope: 'host' }, 1000 + i)
        .seed.id,
    );
  }
  seeds.markSeedRemoved(ids[3] as number, 2000);
  const labels = seedLabelQueries(db);
  labels.addLabels(ids[0] as number, ['news', 'reading']);
  labels.addLabels(ids[1] as number, ['news']);
  const frontier = frontierQueries(db);
  const pages = pageQueries(db);
  const links = linkTargetQueries(db);
  for (let i = 0; i < 25; i++) {
    const url = `http://s${i % 5}.test/p${i}`;
    frontier.addUrl(
      { url, origin: `http://s${i % 5}.test`, seedId: ids[i % 5] as number, depth: 1, redirects: 0 },
      3000 + i,
    );
    const id = pages.upsertPage(
      makePage(url, { seedId: ids[i % 5] as number, title: `Page ${i}`, body: `words of page ${i} zebra` }),
    );
    links.recordLinks(id, [{ url: `http://t.test/${i % 7}`, text: `anchor ${i}` }]);
  }
  pages.upsertPage(makePage('http://s0.test/p0', { seedId: ids[0] as number, title: 'Page 0 again', body: 'changed' }));
  const hosts = hostQueries(db);
  for (let i = 0; i < 5; i++) hosts.saveHost(newHostRow(`http://s${i}.test`, `s${i}.test`), 4000);
  const sessions = sessionQueries(db);
  sessions.startSession('digest-a', 5000, 9000);
  sessions.startSession('digest-b', 5001, 9001);
  return env;
}

/** `url` with a password the tests look for in every message. */
export function withPassword(url: string): string {
  const u = new URL(url);
  u.password = 'sekret-pw-42';
  return u.toString();
}

/** A pool on `url`, migrated to Lantern's PostgreSQL schema. */
export async function migratedPool(url: string): Promise<pg.Pool> {
  const pool = openPgPool(url, { max: 2 });
  await migratePg(pool);
  return pool;
}

/** Every table's row count on PostgreSQL. */
export async function pgCounts(pool: pg.Pool): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of COPIED_TABLES) {
    out[t] = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`)).rows[0]?.n ?? -1;
  }
  return out;
}
