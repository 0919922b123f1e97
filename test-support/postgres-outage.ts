/**
 * An outage of a throwaway PostgreSQL cluster (test-support/postgres.ts): stopped at once as if the machine lost
 * power (`pg_ctl stop -m immediate`, no checkpoint, every connection cut), then started again on the same port
 * with the same settings (`pg_ctl restart` reads them from postmaster.opts) and crash recovery run.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { findPostgresBin, type TestPostgres, TestPostgresError } from './postgres.ts';

/** Runs pg_ctl on the cluster's data folder, as the `postgres` OS user when this process is root. */
function pgCtl(cluster: TestPostgres, args: string[]): void {
  const bin = path.join(findPostgresBin(), 'pg_ctl');
  const full = [...args, '-D', path.join(cluster.folder, 'data'), '-w', '-t', '60'];
  const root = process.getuid?.() === 0;
  const done = spawnSync(root ? 'runuser' : bin, root ? ['-u', 'postgres', '--', bin, ...full] : full, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (done.status !== 0) {
    throw new TestPostgresError(
      `postgres-outage: pg_ctl ${args[0]} failed (exit ${done.status ?? done.signal}): ${(done.stderr || done.stdout || String(done.error)).trim()}`,
    );
  }
}

/** Stops the cluster at once (immediate mode): connections are cut, nothing is flushed. */
export function stopPostgresNow(cluster: TestPostgres): void {
  pgCtl(cluster, ['stop', '-m', 'immediate']);
}

/** Starts the stopped cluster again with the settings it last ran with, and waits until it accepts connections. */
export function startPostgresAgain(cluster: TestPostgres): void {
  pgCtl(cluster, ['restart', '-l', path.join(cluster.folder, 'server.log')]);
}
