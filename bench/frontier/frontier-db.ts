/**
 * The frontier benchmark's database: a real Lantern SQLite file (every migration applied) holding a
 * crawl that found `hosts` × `urlsPerHost` URLs, all still queued, owned by `seeds` seeds of an equal
 * number of hosts each, every host with its robots.txt known (allow all) for a year. The rows are
 * written in the order a crawl finds them: host after host, round after round, so one host's rows lie
 * scattered over the table as they would after a real crawl. Generated once (a minute or two: the
 * indexes are built after the rows) and kept for `--reuse`; each part works on a copy of its own.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { DB_FILE, openDatabase } from '../../db/open.ts';

/** The shape of the generated crawl. */
export interface FrontierShape {
  hosts: number;
  urlsPerHost: number;
  /** Seeds, each owning hosts / seeds hosts (the seed removed by the benchmark is one of them). */
  seeds: number;
}

/** The figure: 10,000 hosts × 100 URLs = 1,000,000 queued, in 10 seeds of 100,000 URLs. */
export const MILLION: FrontierShape = { hosts: 10_000, urlsPerHost: 100, seeds: 10 };

/**
 * The origin of generated host `i` (names only: nothing is contacted): each its own registrable domain, so
 * each its own politeness group under the default CRAWL_POLITENESS_GROUP=domain (as `host-N.bench.test`,
 * all 10,000 were one site, crawled one request a second).
 */
export const hostOrigin = (i: number): string => `http://host-${i}.test`;

/** The seed id owning host `i`. */
export const seedOfHost = (shape: FrontierShape, i: number): number => 1 + Math.floor(i / (shape.hosts / shape.seeds));

function shapeName(s: FrontierShape): string {
  return `${s.hosts}x${s.urlsPerHost}-${s.seeds}-sites`; // -sites: one registrable domain per host
}

/**
 * The path of a generated database of `shape` in `root` (the OS's temporary folder by default), generated
 * now unless `reuse` and one is there already; `now` is the time written in the rows. Returns the file and
 * how long generating took (0 if reused).
 */
export function frontierDatabase(
  shape: FrontierShape,
  opts: { reuse: boolean; root?: string; now?: number },
): { file: string; generatedMs: number } {
  const dir = path.join(opts.root ?? os.tmpdir(), `lantern-frontier-bench-${shapeName(shape)}`);
  const file = path.join(dir, DB_FILE);
  const marker = path.join(dir, 'complete');
  if (opts.reuse && existsSync(marker) && readFileSync(marker, 'utf8') === JSON.stringify(shape))
    return { file, generatedMs: 0 };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = performance.now();
  openDatabase(dir).close(); // migrated, as Lantern creates it
  generate(file, shape, opts.now ?? Date.now());
  writeFileSync(marker, JSON.stringify(shape));
  return { file, generatedMs: performance.now() - t0 };
}

function generate(file: string, shape: FrontierShape, now: number): void {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = OFF');
  const indexes = db
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'frontier' AND sql IS NOT NULL`)
    .all() as Array<{ name: string; sql: string }>;
  for (const { name } of indexes) db.exec(`DROP INDEX ${name}`);
  const seed = db.prepare(
    `INSERT INTO seeds (id, url, origin, depth, scope, created_at, updated_at) VALUES (?, ?, ?, 3, 'any', ?, ?)`,
  );
  const host = db.prepare(
    `INSERT INTO hosts (origin, host, robots_status, robots_http_status, robots_fetched_at, robots_expires_at, updated_at)
     VALUES (?, ?, 'allow-all', 404, ?, ?, ?)`,
  );
  const url = db.prepare(`INSERT INTO frontier (url, origin, seed_id, depth, discovered_at) VALUES (?, ?, ?, ?, ?)`);
  const perSeed = shape.hosts / shape.seeds;
  db.transaction(() => {
    for (let s = 0; s < shape.seeds; s++)
      seed.run(s + 1, `${hostOrigin(s * perSeed)}/`, hostOrigin(s * perSeed), now, now);
    for (let h = 0; h < shape.hosts; h++)
      host.run(hostOrigin(h), new URL(hostOrigin(h)).host, now, now + 365 * 86_400_000, now);
    for (let i = 0; i < shape.urlsPerHost; i++) {
      for (let h = 0; h < shape.hosts; h++) {
        const origin = hostOrigin(h);
        url.run(
          i === 0 && h % perSeed === 0 ? `${origin}/` : `${origin}/section-${i % 7}/page-${i}.html`,
          origin,
          seedOfHost(shape, h),
          i === 0 ? 0 : 1,
          now,
        );
      }
    }
  })();
  for (const { sql } of indexes) db.exec(sql);
  db.pragma('journal_mode = WAL');
  db.close();
}

/** A copy of the generated database in a fresh DATA_DIR (removed by `dispose`). */
export function copyOfDatabase(file: string): { dataDir: string; dispose(): void } {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-frontier-part-'));
  copyFileSync(file, path.join(dataDir, DB_FILE));
  return { dataDir, dispose: () => rmSync(dataDir, { recursive: true, force: true }) };
}
