import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

/** The file that says which crawler primary owns DATA_DIR: two primaries would be two arbiters. */
export const LOCK_FILE = 'crawler.pid';

/** How long a new primary waits for the previous one (e.g. finishing its in-flight fetches) before killing it. */
export const LOCK_WAIT_MS = 10_000;

/**
 * When a process started, in clock ticks since boot (/proc/<pid>/stat field 22), or undefined where
 * there is no /proc. With the pid it names one process: a pid reused after a reboot or a crash has
 * another start time, so a stale lock never makes us wait for, or kill, an unrelated process.
 */
export function startTicks(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? 'zombie' : fields[19];
  } catch {
    return undefined;
  }
}

/** Whether the process that wrote the lock (`pid`, started at `ticks`) still runs; a zombie has ended. */
export function holderAlive(pid: number, ticks: string | undefined): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const current = startTicks(pid);
  if (current === 'zombie') return false;
  if (current === undefined || ticks === undefined) return true; // no /proc: the pid is all we know
  return current === ticks;
}

/**
 * Takes DATA_DIR's crawler lock. A previous primary that is still shutting down (its server was killed,
 * and it is finishing its in-flight fetches) gets `waitMs` to exit and is then killed, so no two
 * primaries ever schedule the same hosts. A lock left by a dead process (or by a process that merely
 * got its pid later) is taken over at once. Throws (with the reason) if the lock file cannot be written.
 */
export async function acquireLock(dataDir: string, waitMs = LOCK_WAIT_MS): Promise<void> {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  let previous = NaN;
  let ticks: string | undefined;
  try {
    const [pid, t] = readFileSync(file, 'utf8').trim().split(/\s+/);
    previous = Number(pid);
    ticks = t;
  } catch {
    previous = NaN;
  }
  if (Number.isInteger(previous) && previous > 0 && previous !== process.pid && holderAlive(previous, ticks)) {
    process.stderr.write(`primary-lock: waiting for crawler ${previous} to stop\n`);
    const deadline = Date.now() + waitMs;
    while (holderAlive(previous, ticks) && Date.now() < deadline) await delay(50);
    if (holderAlive(previous, ticks)) {
      process.stderr.write(`primary-lock: crawler ${previous} did not stop in ${waitMs} ms; killing it\n`);
      try {
        process.kill(previous, 'SIGKILL');
      } catch {
        // It exited just now.
      }
      const killDeadline = Date.now() + 5_000;
      while (holderAlive(previous, ticks) && Date.now() < killDeadline) await delay(20);
      if (holderAlive(previous, ticks)) throw new Error(`primary-lock: crawler ${previous} still runs after SIGKILL`);
    }
  }
  try {
    writeFileSync(file, `${process.pid} ${startTicks(process.pid) ?? ''}\n`);
  } catch (err) {
    throw new Error(`primary-lock: cannot write ${file}: ${(err as Error).message}`);
  }
}

/** Gives the lock up (only if it is still ours). */
export function releaseLock(dataDir: string): void {
  const file = path.join(dataDir, LOCK_FILE);
  try {
    if (Number(readFileSync(file, 'utf8').trim().split(/\s+/)[0]) === process.pid) rmSync(file);
  } catch {
    // Already gone: nothing to release.
  }
}
