import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../../db/open.ts';
import { seedQueries, type Scope } from '../../db/seeds.ts';
import type { PrimaryToServer } from '../../crawler/protocol.ts';
import { waitFor } from './wait-for.ts';

const PRIMARY = fileURLToPath(new URL('../../crawler/primary.ts', import.meta.url));

/** A real crawler primary (with its real cluster of workers) on a temporary DATA_DIR, driven like the server drives it. */
export interface CrawlerHarness {
  dataDir: string;
  db: Database;
  primary: ChildProcess;
  messages: PrimaryToServer[];
  /** Adds a seed the way the server does (writes the seeds table, then tells the primary). */
  addSeed(url: string, opts?: { depth?: number; scope?: Scope }): void;
  /** Counts of frontier URLs by state. */
  states(): Record<string, number>;
  /** Waits until nothing is queued or leased (and at least `minDone` URLs are finished). */
  waitIdle(opts?: { minDone?: number; timeoutMs?: number }): Promise<void>;
  /** Kills the primary (default SIGKILL) and waits until it and its workers are gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts a new primary on the same DATA_DIR (as the server does after a crash). */
  restart(): void;
  /** Stops everything and removes the DATA_DIR. */
  close(): Promise<void>;
}

/** Starts a crawler primary with the given environment (CRAWL_ALLOW_PRIVATE=1 is always set). */
export function startCrawler(env: Record<string, string> = {}): CrawlerHarness {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-crawl-'));
  const db = openDatabase(dataDir);
  const seeds = seedQueries(db);
  const fullEnv = { ...process.env, DATA_DIR: dataDir, CRAWL_ALLOW_PRIVATE: '1', CRAWL_WORKERS: '2', CRAWL_DELAY_MS: '100', ...env };
  const messages: PrimaryToServer[] = [];
  const spawn = () => {
    const child = fork(PRIMARY, [], { env: fullEnv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', (m: PrimaryToServer) => messages.push(m));
    return child;
  };
  const statesStmt = db.prepare(`SELECT state, COUNT(*) AS n FROM frontier GROUP BY state`);
  const h: CrawlerHarness = {
    dataDir,
    db,
    primary: spawn(),
    messages,
    addSeed(url, opts = {}) {
      const u = new URL(url);
      seeds.upsertSeed({ url: u.href, origin: u.origin, depth: opts.depth ?? 2, scope: opts.scope ?? 'host' }, Date.now());
      if (h.primary.connected) h.primary.send({ type: 'seeds-changed' });
    },
    states() {
      const out: Record<string, number> = {};
      for (const r of statesStmt.all() as Array<{ state: string; n: number }>) out[r.state] = r.n;
      return out;
    },
    async waitIdle(opts = {}) {
      await waitFor(() => {
        const s = h.states();
        const done = (s.done ?? 0) + (s.failed ?? 0) + (s.skipped ?? 0);
        return (s.queued ?? 0) === 0 && (s.leased ?? 0) === 0 && done >= (opts.minDone ?? 1);
      }, { timeoutMs: opts.timeoutMs ?? 30_000, message: `crawl to finish (states ${JSON.stringify(h.states())})` });
    },
    async kill(signal = 'SIGKILL') {
      const child = h.primary;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
    restart() {
      h.primary = spawn();
      h.primary.once('spawn', () => h.primary.send({ type: 'seeds-changed' }));
    },
    async close() {
      const child = h.primary;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.send({ type: 'shutdown' });
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return h;
}
