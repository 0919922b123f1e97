/**
 * The throwaway PostgreSQL cluster the engine's tests run on: found from PATH or Debian's folders, a clear
 * failure (never a skip) without PostgreSQL installed, fresh databases, and nothing left once stopped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { findPostgresBin, reapOrphanClusters, startTestPostgres, TestPostgresError } from './postgres.ts';

/**
 * A test process of its own that starts a cluster, says where (one JSON line) and then waits (at most a
 * minute, so it ends by itself), for the tests below to stop it the ways a test run can be stopped.
 */
async function clusterInAnotherProcess(): Promise<{
  child: ReturnType<typeof spawn>;
  folder: string;
  adminUrl: string;
}> {
  const module = fileURLToPath(new URL('./postgres.ts', import.meta.url));
  const script = `import { startTestPostgres } from ${JSON.stringify(module)};
const c = await startTestPostgres();
console.log(JSON.stringify({ folder: c.folder, adminUrl: c.adminUrl }));
setTimeout(() => {}, 60_000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    if (out.includes('\n')) break;
  }
  const line = out.split('\n')[0] ?? '';
  assert.ok(line.startsWith('{'), `the child started a cluster: ${JSON.stringify(out)}`);
  return { child, ...(JSON.parse(line) as { folder: string; adminUrl: string }) };
}

/** Whether a server answers at `url`. */
async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/** A folder of fake executables named `names` under `dir`. */
function fakeBin(dir: string, names: string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    writeFileSync(path.join(dir, name), '#!/bin/sh\n');
    chmodSync(path.join(dir, name), 0o755);
  }
  return dir;
}

test('the binaries come from PATH first, else the newest /usr/lib/postgresql/<version>/bin; none is an error saying what to install', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lantern-pgbin-'));
  try {
    const debian = path.join(root, 'lib');
    fakeBin(path.join(debian, '9', 'bin'), ['initdb', 'pg_ctl']);
    fakeBin(path.join(debian, '15', 'bin'), ['initdb', 'pg_ctl']);
    fakeBin(path.join(debian, '16', 'bin'), ['pg_ctl']); // a client-only package: no initdb
    assert.equal(findPostgresBin('', debian), path.join(debian, '15', 'bin'), 'numerically newest with initdb');
    const onPath = fakeBin(path.join(root, 'path'), ['initdb', 'pg_ctl']);
    assert.equal(findPostgresBin(`/nonexistent${path.delimiter}${onPath}`, debian), onPath);
    assert.throws(
      () => findPostgresBin('', path.join(root, 'none')),
      (err: Error) =>
        err instanceof TestPostgresError &&
        err.message.startsWith('postgres: ') &&
        err.message.includes('apt-get install -y postgresql'),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a started cluster gives fresh databases on 127.0.0.1, and once stopped nothing of it is left', async () => {
  const cluster = await startTestPostgres();
  let stopped = false;
  try {
    assert.match(cluster.adminUrl, /^postgres:\/\/lantern@127\.0\.0\.1:\d+\/postgres$/);
    const [a, b] = [await cluster.createDatabase(), await cluster.createDatabase()];
    assert.notEqual(a, b);
    const client = new pg.Client({ connectionString: b });
    await client.connect();
    const { rows } = await client.query<{ db: string; tables: string }>(
      `SELECT current_database() AS db, (SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public') AS tables`,
    );
    await client.end();
    assert.deepEqual(rows[0], { db: b.split('/').at(-1), tables: '0' });
    assert.ok(existsSync(cluster.folder));
    cluster.stop();
    stopped = true;
    assert.equal(existsSync(cluster.folder), false, 'its folder is removed');
    const late = new pg.Client({ connectionString: a });
    await assert.rejects(late.connect(), /ECONNREFUSED/, 'its server is gone');
    cluster.stop(); // a second stop is harmless
  } finally {
    if (!stopped) cluster.stop();
  }
});

test('a test process stopped by SIGTERM or SIGINT takes its cluster with it (server stopped, folder removed)', async () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const { child, folder, adminUrl } = await clusterInAnotherProcess();
    assert.equal(await answers(adminUrl), true, 'running before the signal');
    const exited = once(child, 'exit');
    child.kill(signal);
    const [code, sig] = (await exited) as [number | null, NodeJS.Signals | null];
    assert.equal(sig ?? code, signal === 'SIGTERM' ? 'SIGTERM' : 'SIGINT', 'the process still ends by the signal');
    assert.equal(existsSync(folder), false, `${signal}: its folder is removed`);
    assert.equal(await answers(adminUrl), false, `${signal}: its server is gone`);
  }
});

test('a cluster whose process was killed outright (SIGKILL) is stopped and removed by the next start', async () => {
  const { child, folder, adminUrl } = await clusterInAnotherProcess();
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
  assert.equal(existsSync(folder), true, 'SIGKILL leaves it behind');
  assert.equal(await answers(adminUrl), true, 'still running');
  assert.deepEqual(
    reapOrphanClusters().filter((f) => f === folder),
    [folder],
    'the orphan is reaped',
  );
  assert.equal(existsSync(folder), false, 'its folder is removed');
  assert.equal(await answers(adminUrl), false, 'its server is gone');
  const mine = await startTestPostgres(); // a live process's cluster is never an orphan
  try {
    assert.equal(reapOrphanClusters().includes(mine.folder), false);
    assert.equal(await answers(mine.adminUrl), true);
  } finally {
    mine.stop();
  }
});
