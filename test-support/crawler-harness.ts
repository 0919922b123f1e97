import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../db/open.ts';
import { seedQueries } from '../db/seeds.ts';
import type { Scope } from '../shared/enumerations.ts';
import type { CrawlSnapshot, DomainInfo, PrimaryToServer } from '../crawler/common/protocol.ts';
import { DomainBook } from '../server/domain-book.ts';
import { waitFor } from './wait-for.ts';
import { workerChildren } from './proc.ts';
import { configArgument, loadConfig } from '../shared/config.ts';
import { SERVER_BUILD, staleBuild } from './build-freshness.ts';

const PRIMARY_SOURCE = fileURLToPath(new URL('../crawler/primary.ts', import.meta.url));
const PRIMARY_BUILT = fileURLToPath(new URL('../dist/crawler/primary.js', import.meta.url));

let primaryEntry: { file: string; execArgv: string[] } | undefined;
/**
 * What a harness forks as the primary: the build's bundle (dist/crawler/primary.js, which forks
 * dist/crawler/worker.js: what `npm start` runs, and a process starts from it without compiling the sources)
 * when `npm run build:app` is newer than every source, else crawler/primary.ts through this process's loader
 * (tsx). Decided once per test file; `npm test` builds before the tests, so there every harness runs the build.
 */
function primaryToFork(): { file: string; execArgv: string[] } {
  primaryEntry ??=
    staleBuild(SERVER_BUILD) === undefined
      ? { file: PRIMARY_BUILT, execArgv: withoutTsx(process.execArgv) }
      : { file: PRIMARY_SOURCE, execArgv: process.execArgv };
  return primaryEntry;
}

/** Node's options without the tsx loader (`--import tsx` or `--import=tsx`): a bundle needs none. */
function withoutTsx(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    if (execArgv[i] === '--import' && execArgv[i + 1] === 'tsx') i++;
    else if (execArgv[i] !== '--import=tsx') kept.push(execArgv[i]);
  }
  return kept;
}

/** One frontier row as a test reads it from the real SQLite file. */
export interface FrontierState {
  url: string;
  state: 'queued' | 'leased' | 'done' | 'failed' | 'skipped';
  attempts: number;
  lastError: string | null;
  redirects: number;
  depth: number;
}

/**
 * A snapshot as the server shows it: the message the primary sent (the hosts that changed) and every
 * host's row as of it, as /api/domains would answer then (server/domain-book.ts).
 */
export type ShownSnapshot = CrawlSnapshot & { domains: DomainInfo[] };

/** What the primary sent, its snapshots with the rows the server would show (ShownSnapshot). */
export type HarnessMessage = Exclude<PrimaryToServer, CrawlSnapshot> | ShownSnapshot;

/** A real crawler primary (with its real cluster of workers) on a temporary DATA_DIR, driven like the server drives it. */
export interface CrawlerHarness {
  dataDir: string;
  db: Database;
  readonly primary: ChildProcess;
  messages: HarnessMessage[];
  /** Adds a seed the way the server does (writes the seeds table, then tells the primary). */
  addSeed(url: string, opts?: { depth?: number; scope?: Scope }): void;
  /** Removes a seed as DELETE /api/seeds/:id does (marks it and tells the primary); false if there is none. */
  removeSeed(url: string): boolean;
  /** Counts of frontier URLs by state, over every host or only `origin`'s. */
  states(origin?: string): Record<string, number>;
  /**
   * Waits until nothing is queued or leased (and at least `minDone` URLs are finished), over every host or only
   * `origin`'s; fails when the counts by state stay unchanged for `timeoutMs` (default 30 s: a stalled crawl), or
   * after 10 x `timeoutMs` in all.
   */
  waitIdle(opts?: { minDone?: number; timeoutMs?: number; origin?: string }): Promise<void>;
  /** The frontier row of a URL, if the crawler knows it. */
  frontier(url: string): FrontierState | undefined;
  /** The host's row in the latest snapshot the primary sent (what /api/domains shows), if any. */
  domain(host: string): DomainInfo | undefined;
  /** Pids of the current primary's live children: its cluster workers. */
  workerPids(): number[];
  /**
   * The worker that owns the TCP connection from `clientPort` to `serverAddress:serverPort` (a site
   * sees the client port as the request's remote port), found through /proc; undefined if no worker
   * has it (Linux only, IPv4).
   */
  workerByConnection(conn: { clientPort: number; serverAddress: string; serverPort: number }): number | undefined;
  /** Kills the primary (default SIGKILL) and waits until it and its workers are gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts a new primary on the same DATA_DIR (as the server does after a crash); resolves once it said `started`. */
  restart(): Promise<void>;
  /** Why the crawler may have stopped working: unexpected exits and the end of its stderr (for failure messages). */
  diagnosis(): string;
  /** Stops everything and removes the DATA_DIR. */
  close(): Promise<void>;
}

/** '0100007F:1F90' (as /proc/net/tcp writes IPv4 endpoints) → '127.0.0.1:8080'. */
function decodeEndpoint(hex: string): string {
  const [ip, port] = hex.split(':');
  const bytes = [0, 2, 4, 6].map((i) => parseInt(ip.slice(i, i + 2), 16)).reverse();
  return `${bytes.join('.')}:${parseInt(port, 16)}`;
}

/**
 * Socket inodes of IPv4 TCP connections from local port `clientPort` to `server` ('127.0.0.5:4321'),
 * from /proc/net/tcp. The remote end matters: one local port can serve connections to several hosts.
 */
function socketInodes(clientPort: number, server: string): Set<string> {
  const inodes = new Set<string>();
  let text = '';
  try {
    text = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return inodes;
  }
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    if (parseInt(f[1].split(':')[1], 16) === clientPort && decodeEndpoint(f[2]) === server) inodes.add(f[9]);
  }
  return inodes;
}

/** Whether a process exists and is not a zombie (an orphan's zombie may wait a while for its reaper). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * The process side of a crawler harness, the same on both engines: the forked primary (restarted on demand,
 * as the server does), what it sent, its workers, and why it stopped. The engine's side (seeds, frontier)
 * is startCrawler's (SQLite) or engine-crawler.ts's (either engine).
 */
export interface CrawlerProcess {
  /** The current primary process (a new one after `restart`). */
  readonly primary: ChildProcess;
  messages: HarnessMessage[];
  domain: CrawlerHarness['domain'];
  workerPids: CrawlerHarness['workerPids'];
  workerByConnection: CrawlerHarness['workerByConnection'];
  kill: CrawlerHarness['kill'];
  restart: CrawlerHarness['restart'];
  diagnosis: CrawlerHarness['diagnosis'];
  /** Asks the primary to shut down (SIGKILL after 10 s) and waits until it has exited. */
  stop(): Promise<void>;
}

/**
 * Forks a crawler primary on `dataDir` with `env` added to this process's environment (over the harness's
 * defaults: CRAWL_ALLOW_PRIVATE=1, two workers, 100 ms delay). DATABASE_URL, when `env` has it, reaches the
 * primary in its environment only, as the server passes it (shared/config.ts configArgument keeps it off argv).
 */
export function startCrawlerProcess(dataDir: string, env: Record<string, string> = {}): CrawlerProcess {
  const fullEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    CRAWL_ALLOW_PRIVATE: '1',
    CRAWL_WORKERS: '2',
    CRAWL_DELAY_MS: '100',
    ...env,
  };
  const messages: HarnessMessage[] = [];
  const book = new DomainBook(); // the server's copy of the hosts (a restarted primary's first snapshot is full)
  // The last lines the primary (and its workers) wrote to stderr, passed through as they come, so a
  // failure can say why the crawler stopped (CI shows only part of a long log).
  let stderrTail = '';
  let exits: string[] = [];
  const spawn = () => {
    const { file, execArgv } = primaryToFork();
    const child = fork(file, [configArgument(loadConfig(fullEnv))], {
      env: fullEnv,
      execArgv,
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    child.on('message', (m: PrimaryToServer) => {
      if (m.type !== 'snapshot') messages.push(m);
      else {
        book.apply(m);
        messages.push({ ...m, domains: book.rows() });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    child.on('exit', (code, signal) =>
      exits.push(`the primary (pid ${child.pid}) exited with ${signal ?? `code ${code}`}`),
    );
    return child;
  };
  let primary = spawn();
  const p: CrawlerProcess = {
    get primary() {
      return primary;
    },
    messages,
    diagnosis: () =>
      exits.length === 0 ? '' : `; ${exits.join('; ')}; its stderr ended: ${stderrTail.trim().slice(-1000)}`,
    domain(host) {
      for (let i = messages.length - 1; i >= 0; i--) {
        const m = messages[i];
        if (m.type === 'snapshot') return m.domains.find((d) => d.host === host);
      }
      return undefined;
    },
    workerPids() {
      const pid = primary.pid;
      return pid === undefined ? [] : workerChildren(pid);
    },
    workerByConnection(conn) {
      const inodes = socketInodes(conn.clientPort, `${conn.serverAddress}:${conn.serverPort}`);
      if (inodes.size === 0) return undefined;
      for (const pid of p.workerPids()) {
        let fds: string[] = [];
        try {
          fds = readdirSync(`/proc/${pid}/fd`);
        } catch {
          continue;
        }
        for (const fd of fds) {
          try {
            const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
            if (m && inodes.has(m[1])) return pid;
          } catch {
            // The descriptor closed while we looked.
          }
        }
      }
      return undefined;
    },
    async kill(signal = 'SIGKILL') {
      const child = primary;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const workers = p.workerPids();
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
      exits = []; // an exit the test asked for explains nothing
      // Orphaned workers notice the lost IPC channel and exit; a restart must not overlap with them.
      await waitFor(() => workers.every((pid) => !alive(pid)), {
        timeoutMs: 10_000,
        message: `workers ${workers.join(', ')} of the killed primary to exit`,
      });
    },
    async restart() {
      const seen = messages.length;
      primary = spawn();
      await waitFor(() => messages.slice(seen).some((m) => m.type === 'started'), {
        timeoutMs: 20_000,
        message: 'the restarted primary to start',
      });
    },
    async stop() {
      const child = primary;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.send({ type: 'shutdown' });
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
    },
  };
  return p;
}

/** Starts a crawler primary on SQLite with the given environment (CRAWL_ALLOW_PRIVATE=1 is always set). */
export function startCrawler(env: Record<string, string> = {}): CrawlerHarness {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-crawl-'));
  const db = openDatabase(dataDir);
  const seeds = seedQueries(db);
  const proc = startCrawlerProcess(dataDir, env);
  const statesStmt = db.prepare(`SELECT state, COUNT(*) AS n FROM frontier GROUP BY state`);
  const originStatesStmt = db.prepare(`SELECT state, COUNT(*) AS n FROM frontier WHERE origin = ? GROUP BY state`);
  const frontierStmt = db.prepare(
    `SELECT url, state, attempts, last_error AS lastError, redirects, depth FROM frontier WHERE url = ?`,
  );
  const h: CrawlerHarness = {
    dataDir,
    db,
    get primary() {
      return proc.primary;
    },
    messages: proc.messages,
    addSeed(url, opts = {}) {
      const u = new URL(url);
      seeds.upsertSeed(
        { url: u.href, origin: u.origin, depth: opts.depth ?? 2, scope: opts.scope ?? 'host' },
        Date.now(),
      );
      if (h.primary.connected) h.primary.send({ type: 'seeds-changed' });
    },
    removeSeed(url) {
      const id = (db.prepare('SELECT id FROM seeds WHERE url = ?').get(new URL(url).href) as { id: number } | undefined)
        ?.id;
      const removed = id !== undefined && seeds.markSeedRemoved(id, Date.now()) !== undefined;
      if (removed && h.primary.connected) h.primary.send({ type: 'seeds-changed' });
      return removed;
    },
    states(origin) {
      const out: Record<string, number> = {};
      const rows = (origin === undefined ? statesStmt.all() : originStatesStmt.all(origin)) as Array<{
        state: string;
        n: number;
      }>;
      for (const r of rows) out[r.state] = r.n;
      return out;
    },
    async waitIdle(opts = {}) {
      await waitFor(() => isIdle(h.states(opts.origin), opts.minDone), {
        timeoutMs: opts.timeoutMs ?? 30_000,
        progress: () => JSON.stringify(h.states(opts.origin)), // a slow crawl that moves is no failure; a stalled one is
        message: () =>
          `crawl${opts.origin ? ` of ${opts.origin}` : ''} to finish (states at the deadline ${JSON.stringify(h.states(opts.origin))}${proc.diagnosis()})`,
      });
    },
    frontier(url) {
      return frontierStmt.get(url) as FrontierState | undefined;
    },
    domain: proc.domain,
    workerPids: proc.workerPids,
    workerByConnection: proc.workerByConnection,
    kill: proc.kill,
    restart: proc.restart,
    diagnosis: proc.diagnosis,
    async close() {
      await proc.stop();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}

/** Whether frontier counts by state say the crawl is idle: nothing queued or leased, at least `minDone` (1) finished. */
export function isIdle(s: Record<string, number>, minDone = 1): boolean {
  const done = (s.done ?? 0) + (s.failed ?? 0) + (s.skipped ?? 0);
  return (s.queued ?? 0) === 0 && (s.leased ?? 0) === 0 && done >= minDone;
}
