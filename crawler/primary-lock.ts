import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** The file that says which crawler primary owns DATA_DIR: two primaries would be two arbiters. */
export const LOCK_FILE = 'crawler.pid';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes DATA_DIR's crawler lock. A previous primary that is still shutting down (its server was killed)
 * gets `waitMs` to finish and is then killed, so no two primaries ever schedule the same hosts.
 */
export async function acquireLock(dataDir: string, waitMs = 10_000): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  let previous = NaN;
  try {
    previous = Number(readFileSync(file, 'utf8').trim());
  } catch {
    previous = NaN;
  }
  if (Number.isInteger(previous) && previous > 0 && previous !== process.pid && alive(previous)) {
    const deadline = Date.now() + waitMs;
    while (alive(previous) && Date.now() < deadline) await delay(50);
    if (alive(previous)) {
      process.stderr.write(`primary-lock: crawler ${previous} did not stop in ${waitMs} ms; killing it\n`);
      process.kill(previous, 'SIGKILL');
      while (alive(previous)) await delay(20);
    }
  }
  writeFileSync(file, `${process.pid}\n`);
}

/** Gives the lock up (only if it is still ours). */
export function releaseLock(dataDir: string): void {
  const file = path.join(dataDir, LOCK_FILE);
  try {
    if (Number(readFileSync(file, 'utf8').trim()) === process.pid) rmSync(file);
  } catch {
    // Already gone: nothing to release.
  }
}
