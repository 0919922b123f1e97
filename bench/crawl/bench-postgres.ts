/**
 * The PostgreSQL clusters part 2 crawls on: the test harness's throwaway cluster (test-support/postgres.ts:
 * fsync off, full_page_writes off) and, since a real server keeps fsync on, one with the same settings but
 * fsync and full_page_writes on (its few start-up lines copied here, not added to the harness). Both listen on
 * 127.0.0.1 only and are removed when stopped or when this process exits. Also reads the CPU the cluster's
 * processes used, which on PostgreSQL is storage work that SQLite does inside the crawler primary.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../../test-support/app-process.ts';
import { findPostgresBin, startTestPostgres, TestPostgresError } from '../../test-support/postgres.ts';
import { childPids, processAndReapedCpuMs, processCpuMs } from './proc-cpu.ts';

/** A running cluster a crawl can get a fresh database from. */
export interface BenchPostgres {
  /** fsync (and full_page_writes) as the cluster runs with them. */
  readonly fsync: boolean;
  /** The cluster's folder (its data directory is `data` in it). */
  readonly folder: string;
  /** Creates an empty database and answers its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server and removes its folder. */
  stop(): void;
}

/** Whether PostgreSQL's server binaries are installed: undefined if so, else the reason (to print). */
export function postgresMissing(): string | undefined {
  try {
    findPostgresBin();
    return undefined;
  } catch (err) {
    if (err instanceof TestPostgresError) return err.message;
    throw err;
  }
}

/** The settings both clusters share (test-support/postgres.ts), fsync and full_page_writes aside. */
export const SHARED_SETTINGS = 'shared_buffers=32MB, synchronous_commit on, max_connections=40';

/** Starts a cluster with fsync on or off (off: the harness's own cluster, unchanged). */
export async function startBenchPostgres(fsync: boolean): Promise<BenchPostgres> {
  if (!fsync) {
    const c = await startTestPostgres();
    return { fsync, folder: c.folder, createDatabase: () => c.createDatabase(), stop: () => c.stop() };
  }
  return startSyncedCluster();
}

/** Runs one of the cluster's binaries, as the `postgres` OS user when this process is root (initdb refuses root). */
function run(bin: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const done = spawnSync(root ? 'runuser' : bin, root ? ['-u', 'postgres', '--', bin, ...args] : args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (done.status !== 0) {
    throw new TestPostgresError(
      `bench-postgres: ${path.basename(bin)} failed (exit ${done.status ?? done.signal}): ${(done.stderr || done.stdout || String(done.error)).trim()}; is PostgreSQL installed (apt-get install -y postgresql)?`,
    );
  }
}

/** The `postgres` OS user's uid and gid (Debian's package creates it). */
function postgresOwner(): { uid: number; gid: number } {
  const id = (flag: string) =>
    Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim() || Number.NaN);
  const owner = { uid: id('-u'), gid: id('-g') };
  if (!Number.isInteger(owner.uid) || !Number.isInteger(owner.gid)) {
    throw new TestPostgresError(
      'bench-postgres: running as root, the cluster must run as the `postgres` OS user and there is none; apt-get install -y postgresql creates it',
    );
  }
  return owner;
}

/** initdb and start, as test-support/postgres.ts does, with fsync and full_page_writes on. */
async function startSyncedCluster(): Promise<BenchPostgres> {
  const bin = findPostgresBin();
  const folder = mkdtempSync(path.join(os.tmpdir(), 'lantern-bench-pg-'));
  const dataDir = path.join(folder, 'data');
  let started = false;
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const onSignal = (signal: NodeJS.Signals) => {
    stop();
    // The harness's cluster re-raises the signal itself; alone, this does, so the process still ends.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const stop = () => {
    process.off('exit', stop);
    for (const s of signals) process.off(s, onSignal);
    try {
      if (started) run(path.join(bin, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
      started = false;
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  };
  process.on('exit', stop);
  for (const s of signals) process.on(s, onSignal);
  try {
    if (process.getuid?.() === 0) {
      const owner = postgresOwner();
      chownSync(folder, owner.uid, owner.gid);
    }
    run(path.join(bin, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      'lantern',
      '--auth=trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-instructions',
    ]);
    const port = await freePort();
    const options = [
      '-c listen_addresses=127.0.0.1',
      `-c port=${port}`,
      `-c unix_socket_directories=${folder}`,
      '-c fsync=on',
      '-c full_page_writes=on',
      '-c max_connections=40',
      '-c shared_buffers=32MB',
    ].join(' ');
    started = true;
    run(path.join(bin, 'pg_ctl'), [
      'start',
      '-D',
      dataDir,
      '-w',
      '-t',
      '60',
      '-l',
      path.join(folder, 'server.log'),
      '-o',
      options,
    ]);
    const admin = `postgres://lantern@127.0.0.1:${port}/postgres`;
    let made = 0;
    return {
      fsync: true,
      folder,
      async createDatabase() {
        const name = `lantern_bench_${++made}`;
        const client = new pg.Client({ connectionString: admin });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${name}`);
        } finally {
          await client.end();
        }
        return `postgres://lantern@127.0.0.1:${port}/${name}`;
      },
      stop,
    };
  } catch (err) {
    stop();
    throw err;
  }
}

/**
 * CPU ms the cluster's processes have used so far: the postmaster, its live children (backends, WAL writer,
 * checkpointer ...) and the children it has reaped, so a backend that ends between two readings is still
 * counted; undefined when /proc or the cluster's pid file cannot be read.
 */
export function clusterCpuMs(folder: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(folder, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  const own = processAndReapedCpuMs(pid);
  if (own === undefined) return undefined;
  return childPids(pid).reduce((sum, k) => sum + (processCpuMs(k) ?? 0), own);
}
