/**
 * A throwaway cluster (test-support/postgres.ts) stopped and started again without blocking this process: its
 * `halt` and `resume` wait in spawnSync, and a test whose loopback sites run in this process must keep answering
 * meanwhile (a site that stalls for the seconds a start takes would make its requests time out and its log lie about
 * when they came). Here `pg_ctl` runs as a child process that is awaited: `haltPostgres` stops the server at once
 * (`-m immediate`, as a crash would), `restartPostgres` starts it again on the same port and files with the options
 * it last ran with (`pg_ctl restart` reads them from postmaster.opts), recovering as after a crash.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { findPostgresBin, type TestPostgres } from './postgres.ts';

/** pg_ctl failed; the message names the step and what it said. */
export class PgRestartError extends Error {
  override readonly name = 'PgRestartError';
}

/** Runs pg_ctl with `args` on the cluster's data folder (as the `postgres` OS user when this process is root). */
function pgCtl(cluster: TestPostgres, args: string[]): Promise<void> {
  const pgCtlBin = path.join(findPostgresBin(), 'pg_ctl');
  const full = [...args, '-D', path.join(cluster.folder, 'data')];
  const asRoot = process.getuid?.() === 0;
  const child = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', pgCtlBin, ...full], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(pgCtlBin, full, { stdio: ['ignore', 'pipe', 'pipe'] });
  let said = '';
  child.stdout!.on('data', (c: Buffer) => {
    said += c.toString('utf8');
  });
  child.stderr!.on('data', (c: Buffer) => {
    said += c.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.once('error', (err) =>
      reject(new PgRestartError(`pg-restart: pg_ctl ${args[0]} did not run: ${err.message}`)),
    );
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else
        reject(
          new PgRestartError(`pg-restart: pg_ctl ${args[0]} failed (${signal ?? `exit ${code}`}): ${said.trim()}`),
        );
    });
  });
}

/** Stops the cluster's server at once (immediate: connections cut, no checkpoint), keeping its files. */
export function haltPostgres(cluster: TestPostgres): Promise<void> {
  return pgCtl(cluster, ['stop', '-m', 'immediate', '-w']);
}

/**
 * Starts the server `haltPostgres` stopped, with the options it ran with (postmaster.opts), and resolves once it
 * accepts connections (it recovers from its log first, as after a crash).
 */
export function restartPostgres(cluster: TestPostgres): Promise<void> {
  return pgCtl(cluster, ['restart', '-w', '-t', '60', '-l', path.join(cluster.folder, 'server.log')]);
}
