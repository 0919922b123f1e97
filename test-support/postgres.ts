/**
 * A throwaway PostgreSQL cluster for tests: `initdb` in a temporary folder, `postgres` listening on 127.0.0.1
 * at a free port (its unix socket in that folder too), a fresh database per test file or per test, and the
 * whole folder stopped and removed afterwards, also when a test failed, the process exits early or is stopped
 * by a signal (SIGINT, SIGTERM, SIGHUP); a cluster left by a process killed outright (SIGKILL, which nothing
 * can catch) is stopped and removed by the next start (`reapOrphanClusters`). It never
 * touches a system cluster. Running as root (CI, this machine), the cluster runs as the `postgres` OS user,
 * since initdb refuses root. No PostgreSQL installed is a failure that says what to install, never a skip.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './app-process.ts';

/** Where Debian's `postgresql` package puts the server's binaries, one folder per major version. */
const DEBIAN_PG_ROOT = '/usr/lib/postgresql';
/** The prefix of a cluster's temporary folder, in os.tmpdir(). */
const FOLDER_PREFIX = 'lantern-pg-';
/** The prefix of the initdb template's folder, in os.tmpdir() (not a cluster: the reaper passes it over). */
const TEMPLATE_PREFIX = 'lantern-pgtemplate-';
/** The file in a cluster's folder naming the process that started it (a dead one's cluster is an orphan). */
const OWNER_FILE = 'owner.pid';
/** The signals a test process may be stopped by, after which its clusters must not outlive it. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The stop functions of this process's running clusters. */
const running = new Set<() => void>();

/** Stops every cluster of this process; then the signal does what it would have done (the process ends). */
function stopAllOnSignal(signal: NodeJS.Signals): void {
  for (const stop of [...running]) stop();
  for (const s of STOP_SIGNALS) process.removeListener(s, stopAllOnSignal);
  process.kill(process.pid, signal);
}

/** Whether a process `pid` is alive (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, but another user's
  }
}

/**
 * Stops and removes the clusters whose starting process is gone (killed with SIGKILL, or the machine's test
 * run cut short), so that they do not hold ports and memory until the next reboot. Returns their folders.
 */
export function reapOrphanClusters(tmp = os.tmpdir()): string[] {
  const reaped: string[] = [];
  for (const name of readdirSync(tmp).filter((n) => n.startsWith(FOLDER_PREFIX))) {
    const root = path.join(tmp, name);
    let pid: number;
    try {
      pid = Number(readFileSync(path.join(root, OWNER_FILE), 'utf8'));
    } catch {
      continue; // being set up right now by another process, or not a cluster of ours
    }
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    const dataDir = path.join(root, 'data');
    if (existsSync(path.join(dataDir, 'postmaster.pid'))) {
      const owner = process.getuid?.() === 0 ? postgresUser() : null;
      try {
        runAsOwner(path.join(findPostgresBin(), 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w'], owner);
      } catch (err) {
        // A postmaster.pid left by a server that is already gone: nothing to stop, the folder still goes.
        if (!(err instanceof TestPostgresError)) throw err;
      }
    }
    rmSync(root, { recursive: true, force: true });
    reaped.push(root);
  }
  return reaped;
}

/** The cluster's superuser (trusted on loopback and its socket; nothing else can reach the cluster). */
const SUPERUSER = 'lantern';

/** PostgreSQL's binaries are not installed, or the cluster could not start; the message says what to do. */
export class TestPostgresError extends Error {
  override name = 'TestPostgresError';
}

/** The folder holding `initdb`, `pg_ctl` and `postgres`: from PATH first, else the newest Debian one. */
export function findPostgresBin(pathVar = process.env.PATH ?? '', debianRoot = DEBIAN_PG_ROOT): string {
  for (const dir of pathVar.split(path.delimiter).filter((d) => d !== '')) {
    const initdb = path.join(dir, 'initdb');
    if (existsSync(initdb) && existsSync(path.join(dir, 'pg_ctl'))) return path.dirname(realpathSync(initdb));
  }
  const versions = existsSync(debianRoot)
    ? readdirSync(debianRoot)
        .filter((v) => existsSync(path.join(debianRoot, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new TestPostgresError(
      "postgres: the PostgreSQL tests need PostgreSQL's server binaries (initdb, pg_ctl, postgres) and found none on PATH or in /usr/lib/postgresql/*/bin; install them: apt-get install -y postgresql (Debian/Ubuntu; .ci/run does it)",
    );
  }
  return path.join(debianRoot, versions[0], 'bin');
}

/** A running throwaway cluster (see startTestPostgres). */
export interface TestPostgres {
  /** The URL of the cluster's `postgres` database (as its superuser). */
  readonly adminUrl: string;
  /** The temporary folder holding the cluster's files, its socket and its log. */
  readonly folder: string;
  /** Creates a new empty database and answers its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server at once (`pg_ctl stop -m immediate`, as a crash would), keeping its files: a fault to survive. */
  halt(): void;
  /** Starts the server halted by `halt` again, on the same port and files (it recovers as after a crash). */
  resume(): void;
  /** Stops the server at once and removes its folder; safe to call twice. */
  stop(): void;
}

/** Runs a binary of the cluster, as the `postgres` OS user when this process is root. */
function runAsOwner(bin: string, args: string[], owner: { uid: number; gid: number } | null): void {
  const command = owner === null ? bin : 'runuser';
  const full = owner === null ? args : ['-u', 'postgres', '--', bin, ...args];
  const done = spawnSync(command, full, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (done.status !== 0) {
    throw new TestPostgresError(
      `postgres: ${path.basename(bin)} failed (exit ${done.status ?? done.signal}): ${(done.stderr || done.stdout || String(done.error)).trim()}`,
    );
  }
}

/** The uid and gid of the `postgres` OS user (Debian's package creates it); needed only when running as root. */
function postgresUser(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch (err) {
    throw new TestPostgresError(
      'postgres: running as root, the test cluster must run as the `postgres` OS user (initdb refuses root), and there is none; install postgresql (apt-get install -y postgresql creates it) or run the tests as another user',
      { cause: err },
    );
  }
}

/** initdb's arguments after `-D <folder>`: every cluster's files are made alike. */
const INITDB_ARGS = ['-U', SUPERUSER, '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C', '--no-instructions'];

/**
 * Gives `dataDir` a fresh cluster's files: a copy (`cp -a`, ownership kept) of one initdb's output made once per
 * machine for these binaries, this user and these arguments, instead of an initdb per cluster (about 1.2 s of
 * CPU and 2-3 s on a loaded machine, times every test file on PostgreSQL). The template is made in a folder of
 * its own and renamed into place, so a concurrent test process sees either none or a whole one; it is only ever
 * read. It stays in os.tmpdir() (about 40 MB) for the next run; remove it by hand to make it again.
 */
function copyTemplate(bin: string, owner: { uid: number; gid: number } | null, dataDir: string): void {
  const key = createHash('sha256')
    .update(JSON.stringify([realpathSync(bin), owner?.uid ?? process.getuid?.() ?? 0, INITDB_ARGS]))
    .digest('hex')
    .slice(0, 16);
  const template = path.join(os.tmpdir(), `${TEMPLATE_PREFIX}${key}`);
  if (!existsSync(path.join(template, 'data', 'PG_VERSION'))) {
    const making = mkdtempSync(`${template}.making-`);
    try {
      if (owner !== null) chownSync(making, owner.uid, owner.gid);
      runAsOwner(path.join(bin, 'initdb'), ['-D', path.join(making, 'data'), ...INITDB_ARGS], owner);
      try {
        renameSync(making, template);
      } catch (err) {
        // Another test process made it first (the target exists and is not empty): theirs serves.
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      }
    } finally {
      rmSync(making, { recursive: true, force: true });
    }
  }
  const copied = spawnSync('cp', ['-a', path.join(template, 'data'), dataDir], { encoding: 'utf8' });
  if (copied.status !== 0) {
    throw new TestPostgresError(
      `postgres: copying the cluster template ${template} failed (${copied.stderr.trim() || copied.status}); remove that folder and run again`,
    );
  }
}

/**
 * Starts a throwaway cluster: initdb's files (no fsync, trust on loopback only, UTF-8, C locale; copied from a
 * template, see copyTemplate), then the server on
 * 127.0.0.1 at a free port with its socket in the same temporary folder. Settings for tests: fsync off (only
 * the machine's crash could lose what is written; synchronous_commit stays on, so a commit answered survives
 * the server's own crash, `halt`, as on a real server), few
 * connections. Stopped and removed by `stop()`, or at the latest when this process exits.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const bin = findPostgresBin();
  const owner = process.getuid?.() === 0 ? postgresUser() : null;
  reapOrphanClusters();
  const root = mkdtempSync(path.join(os.tmpdir(), FOLDER_PREFIX));
  const dataDir = path.join(root, 'data');
  let stopped = false;
  let started = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    running.delete(stop);
    try {
      if (started) runAsOwner(path.join(bin, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w'], owner);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
  process.on('exit', stop); // a test file that ends without its `after` (an uncaught error) still removes it
  running.add(stop);
  for (const s of STOP_SIGNALS) if (!process.listeners(s).includes(stopAllOnSignal)) process.on(s, stopAllOnSignal);
  try {
    writeFileSync(path.join(root, OWNER_FILE), String(process.pid));
    if (owner !== null) chownSync(root, owner.uid, owner.gid);
    copyTemplate(bin, owner, dataDir);
    const port = await freePort();
    const options = [
      '-c listen_addresses=127.0.0.1',
      `-c port=${port}`,
      `-c unix_socket_directories=${root}`,
      '-c fsync=off',
      '-c full_page_writes=off',
      '-c max_connections=40',
      '-c shared_buffers=32MB',
    ].join(' ');
    const start = () =>
      runAsOwner(
        path.join(bin, 'pg_ctl'),
        ['start', '-D', dataDir, '-w', '-t', '60', '-l', path.join(root, 'server.log'), '-o', options],
        owner,
      );
    started = true;
    start();
    const adminUrl = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
    let made = 0;
    return {
      adminUrl,
      folder: root,
      async createDatabase() {
        const name = `lantern_test_${++made}`;
        const client = new pg.Client({ connectionString: adminUrl });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${name}`);
        } finally {
          await client.end();
        }
        return `postgres://${SUPERUSER}@127.0.0.1:${port}/${name}`;
      },
      halt() {
        runAsOwner(path.join(bin, 'pg_ctl'), ['stop', '-D', dataDir, '-m', 'immediate', '-w'], owner);
        started = false;
      },
      resume() {
        started = true;
        start();
      },
      stop,
    };
  } catch (err) {
    stop();
    throw err;
  }
}
