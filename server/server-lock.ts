import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { holderAlive, startTicks } from '../crawler/coordination/primary-lock.ts';

/** The file that says which Lantern server uses DATA_DIR (beside the crawler's own `crawler.pid`). */
export const SERVER_LOCK_FILE = 'server.pid';

/** Another live Lantern server uses the DATA_DIR: this one must not start (its crawler would fight the other's). */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number,
  ) {
    super(
      `server-lock: DATA_DIR ${dataDir} is already used by another Lantern server (pid ${holderPid}); stop that one first, or set DATA_DIR to another directory`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** The pid and start time written in a lock file, or undefined if it is missing or unreadable. */
function readHolder(file: string): { pid: number; ticks: string | undefined } | undefined {
  try {
    const [pid, ticks] = readFileSync(file, 'utf8').trim().split(/\s+/);
    const n = Number(pid);
    return Number.isInteger(n) && n > 0 ? { pid: n, ticks: ticks || undefined } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes DATA_DIR for this server, or throws DataDirInUseError when a live server holds it. Two servers
 * on one directory would each fork a crawler primary, and each new primary takes the crawler lock from
 * the other: they would kill each other's crawl in turn. A lock whose server is gone (killed, crashed,
 * or a pid reused by another program) is taken over. The file is created exclusively, so of two servers
 * starting at once only one gets it.
 */
export function acquireServerLock(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, SERVER_LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, `${process.pid} ${startTicks(process.pid) ?? ''}\n`, { flag: 'wx' });
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new Error(`server-lock: cannot write ${file}: ${(err as Error).message}`);
    }
    const holder = readHolder(file);
    if (holder && holder.pid !== process.pid && holderAlive(holder.pid, holder.ticks))
      throw new DataDirInUseError(dataDir, holder.pid);
    rmSync(file, { force: true }); // left by a server that is gone: take it over
  }
  throw new Error(
    `server-lock: could not take ${file} (it kept reappearing); is another Lantern server starting on DATA_DIR ${dataDir}?`,
  );
}

/** Gives DATA_DIR up (only if the lock is still this process's). */
export function releaseServerLock(dataDir: string): void {
  const file = path.join(dataDir, SERVER_LOCK_FILE);
  if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
}
