/**
 * `npm run bench:copy`: how long moving an index from SQLite to PostgreSQL takes (issue 28, "a way to move":
 * the copy command, `npm run lantern -- copy --to postgres://...`). It builds a database of generated pages
 * (the search bench's corpus: pages with bodies, titles, headings and full-text entries, their frontier rows
 * and link targets; 100,000 by default) or copies one given with `--db`, starts a throwaway PostgreSQL
 * cluster (test-support/postgres.ts: a local server with fsync off, so the figure is the copy's own work
 * rather than a disk's), runs the copy the command runs (copyFromSqlite: one transaction, counts verified)
 * and writes the time, rows per second and both sizes to docs/benchmarks.md (its own section).
 *
 * Flags: --pages N (default 100000)  --db <DATA_DIR> (copy the lantern.db in it instead of generating)
 *        --no-doc (print only)
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DB_FILE, openDatabase } from '../../db/open.ts';
import { copyFromSqlite, type CopyProgress } from '../../db/pg/copy-from-sqlite.ts';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { startTestPostgres } from '../../test-support/postgres.ts';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';
import { addLinks, buildCorpus } from '../search/search-corpus.ts';
import { projectPath } from '../../shared/project-root.ts';

/** Markers around this benchmark's section of docs/benchmarks.md. */
const MARKERS = { start: '<!-- copy:start -->', end: '<!-- copy:end -->' } as const;

const { values } = parseArgs({
  options: { pages: { type: 'string', default: '100000' }, db: { type: 'string' }, 'no-doc': { type: 'boolean' } },
});
const pages = Number(values.pages);
if (!Number.isInteger(pages) || pages < 1)
  throw new Error(`copy-bench: --pages takes a whole number, not ${values.pages}`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-copy-bench-'));
const cluster = await startTestPostgres();
try {
  let source: string;
  if (values.db !== undefined) {
    const from = path.join(values.db, DB_FILE);
    if (!existsSync(from)) throw new Error(`copy-bench: no ${DB_FILE} in ${values.db}; give the DATA_DIR holding one`);
    for (const suffix of ['', '-wal', '-shm'])
      if (existsSync(from + suffix)) copyFileSync(from + suffix, path.join(dir, DB_FILE + suffix));
    source = `the database in ${values.db}`;
  } else {
    console.log(`copy-bench: generating ${pages.toLocaleString('en')} pages`);
    const s = buildCorpus(dir, pages);
    const l = addLinks(dir, pages);
    console.log(`\ncopy-bench: generated in ${(s + l).toFixed(0)} s of writes`);
    source = `${pages.toLocaleString('en')} generated pages (the search bench's corpus, with frontier rows and link targets)`;
  }
  const db = openDatabase(dir); // migrated to this Lantern's version, as the command requires
  db.pragma('wal_checkpoint(TRUNCATE)');
  const sqliteMB = statSync(path.join(dir, DB_FILE)).size / 1024 ** 2;
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 1 });
  try {
    await migratePg(pool);
    const started = performance.now();
    const summary = await copyFromSqlite(db, pool, {
      onProgress: (p: CopyProgress) => {
        if (p.copied === p.total && p.total > 0)
          console.log(`  ${p.table}: ${p.total} rows at ${((performance.now() - started) / 1000).toFixed(1)} s`);
      },
    });
    const seconds = (performance.now() - started) / 1000;
    const rows = summary.counts.reduce((n, c) => n + c.postgres, 0);
    const pgMB =
      Number((await pool.query<{ n: string }>('SELECT pg_database_size(current_database())::text AS n')).rows[0]?.n) /
      1024 ** 2;
    const pageRows = summary.counts.find((c) => c.table === 'pages')?.postgres ?? 0;
    const line = `| ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC | ${pageRows.toLocaleString('en')} | ${rows.toLocaleString('en')} | ${seconds.toFixed(1)} s | ${Math.round(rows / seconds).toLocaleString('en')} | ${sqliteMB.toFixed(0)} MB | ${pgMB.toFixed(0)} MB | ${summary.verified ? 'yes' : 'NO'} | ${os.loadavg()[0].toFixed(1)} |`;
    console.log(
      `\ncopy-bench: ${rows} rows (${pageRows} pages) in ${seconds.toFixed(1)} s; counts agree: ${summary.verified}`,
    );
    for (const c of summary.counts) console.log(`  ${c.table.padEnd(20)} ${c.sqlite} → ${c.postgres}`);
    if (!values['no-doc']) {
      const m = machineInfo();
      writeSection(
        projectPath('docs/benchmarks.md'),
        MARKERS,
        `## Copying SQLite to PostgreSQL (\`npm run bench:copy\`)

Moving an index with \`npm run lantern -- copy --to postgres://...\` (db/pg/copy-from-sqlite.ts: every table in
one PostgreSQL transaction, batches of multi-row INSERTs, counts compared at the end). Source: ${source}.
Target: a throwaway local PostgreSQL cluster (test-support/postgres.ts; fsync off, so this is the copy's own
work and the server's, not a disk's). Machine: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB, Node ${m.node}.

| date | pages | rows, all tables | copy time | rows/s | SQLite file | PostgreSQL database | counts agree | load (1 min) |
|---|---:|---:|---:|---:|---:|---:|---|---:|
${line}`,
      );
    }
    if (!summary.verified) process.exitCode = 1;
  } finally {
    db.close();
    await pool.end();
  }
} finally {
  cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
