/**
 * `npm run lantern -- copy --to URL` (lantern-command.ts) run as a person runs it, on a real SQLite DATA_DIR
 * and a throwaway PostgreSQL cluster (test-support/postgres.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { COPIED_TABLES } from '../db/pg/copy-from-sqlite.ts';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres.ts';
import { migratedPool, pgCounts, seededSqlite, withPassword } from '../test-support/sqlite-with-everything.ts';
import { parseCopyArgs, runLanternCommand } from './lantern-command.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

test('a non-empty target is refused and left unchanged, and the password is in no message', async () => {
  const env = seededSqlite();
  const url = withPassword(await cluster.createDatabase());
  const pool = await migratedPool(url);
  try {
    await pool.query(
      "INSERT INTO seeds (url, origin, depth, scope, created_at, updated_at) VALUES ('http://there.test/', 'http://there.test', 1, 'host', 1, 1)",
    );
    const before = await pgCounts(pool);
    const out: string[] = [];
    const err: string[] = [];
    const code = await runLanternCommand(
      ['copy', '--to', url],
      { DATA_DIR: env.dir },
      (l) => out.push(l),
      (l) => err.push(l),
    );
    assert.equal(code, 1);
    assert.match(
      err.join('\n'),
      /^lantern-command: copy to .* failed: copy-from-sqlite: the PostgreSQL database is not empty \(seeds: 1 rows\); copy into a new empty database/,
    );
    assert.ok(![...out, ...err].join('\n').includes('sekret-pw-42'), [...out, ...err].join('\n'));
    assert.deepEqual(await pgCounts(pool), before);
  } finally {
    await pool.end();
    env.cleanup();
  }
});

test('the command copies into an empty database, prints progress and a summary, and exits 0', async () => {
  const env = seededSqlite();
  const url = withPassword(await cluster.createDatabase());
  const out: string[] = [];
  const err: string[] = [];
  const code = await runLanternCommand(
    ['copy', `--to=${url}`],
    { DATA_DIR: env.dir },
    (l) => out.push(l),
    (l) => err.push(l),
  );
  try {
    assert.deepEqual(err, []);
    assert.equal(code, 0);
    assert.ok(out.includes('copy: pages 25 of 25 rows'), out.join('\n'));
    assert.ok(
      out.some((l) => /^copy: seeds +sqlite 30 postgres 30$/.test(l)),
      out.join('\n'),
    );
    assert.equal(out.at(-1), `copy: done, the counts of all ${COPIED_TABLES.length} tables agree`);
    assert.ok(!out.join('\n').includes('sekret-pw-42'));
  } finally {
    env.cleanup();
  }
});

test('a command line without a postgres:// target is refused with the usage', () => {
  assert.deepEqual(parseCopyArgs(['copy', '--to', 'postgres://h/db']), { to: 'postgres://h/db' });
  assert.throws(
    () => parseCopyArgs(['copy']),
    /^CommandLineError: lantern-command: copy needs --to with a postgres:\/\/ URL; usage: npm run lantern/,
  );
  assert.throws(
    () => parseCopyArgs(['copy', '--to', '/var/lib/lantern']),
    /^CommandLineError: lantern-command: copy needs --to with a postgres:\/\/ URL/,
  );
  assert.throws(() => parseCopyArgs(['move']), /^CommandLineError: lantern-command: unknown command move/);
});
