/**
 * DATA_DIR's crawler lock with real processes (Linux /proc): a lock left by a dead primary is taken at
 * once; a lock naming a live process that merely got the pid later (another start time) is taken at
 * once and that process is left alone; a live holder is waited for, and killed only after the wait.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { acquireLock, LOCK_FILE, releaseLock } from './primary-lock.ts';
import { waitFor } from '../../test-support/wait-for.ts';

/** The start time of a process as /proc/<pid>/stat field 22 gives it. */
function ticks(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
}

function sleeper(): { child: ChildProcess; exit: Promise<NodeJS.Signals | null> } {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  return { child, exit: new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal))) };
}

/** Captures what acquireLock writes to stderr while `fn` runs. */
async function withStderr<T>(fn: (lines: string[]) => Promise<T>): Promise<T> {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(String(chunk));
    return (write as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  try {
    return await fn(lines);
  } finally {
    process.stderr.write = write;
  }
}

function dataDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'lantern-lock-'));
}

const lockPid = (dir: string) => Number(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim().split(/\s+/)[0]);

test('a lock left by a dead process is taken at once, and released only by its owner', async () => {
  const dir = dataDir();
  try {
    const dead = sleeper();
    const pid = dead.child.pid!;
    writeFileSync(path.join(dir, LOCK_FILE), `${pid} ${ticks(pid)}\n`);
    dead.child.kill('SIGKILL');
    await dead.exit;
    await withStderr(async (lines) => {
      await acquireLock(dir, 60_000);
      assert.deepEqual(lines, [], 'no waiting');
    });
    assert.equal(lockPid(dir), process.pid);
    releaseLock(dir);
    assert.throws(() => readFileSync(path.join(dir, LOCK_FILE)), /ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock naming a live process with another start time (a reused pid) is taken at once; that process is left alone', async () => {
  const dir = dataDir();
  const other = sleeper();
  try {
    writeFileSync(path.join(dir, LOCK_FILE), `${other.child.pid} 1\n`);
    await withStderr(async (lines) => {
      await acquireLock(dir, 60_000);
      assert.deepEqual(lines, [], 'no waiting');
    });
    assert.equal(lockPid(dir), process.pid);
    assert.equal(other.child.exitCode, null);
    assert.equal(other.child.signalCode, null, 'the unrelated process was not killed');
  } finally {
    other.child.kill('SIGKILL');
    await other.exit;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a live holder is waited for; the lock is taken only after it exits', async () => {
  const dir = dataDir();
  const holder = sleeper();
  try {
    const pid = holder.child.pid!;
    writeFileSync(path.join(dir, LOCK_FILE), `${pid} ${ticks(pid)}\n`);
    await withStderr(async (lines) => {
      let takenAt = 0;
      const taking = acquireLock(dir, 60_000).then(() => {
        takenAt = performance.now();
      });
      await waitFor(() => lines.some((l) => l.includes(`waiting for crawler ${pid} to stop`)), { timeoutMs: 5_000 });
      assert.equal(takenAt, 0, 'not taken while the holder runs');
      const stoppedAt = performance.now();
      holder.child.kill('SIGTERM');
      await taking;
      assert.ok(takenAt >= stoppedAt, 'taken after the holder was stopped');
      assert.equal(lockPid(dir), process.pid);
      assert.equal(
        await holder.exit,
        'SIGTERM',
        'the holder ended by itself (here: our SIGTERM), not killed by the lock',
      );
    });
  } finally {
    holder.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a holder that does not stop within the wait is killed, then the lock is taken', async () => {
  const dir = dataDir();
  const holder = sleeper();
  try {
    const pid = holder.child.pid!;
    writeFileSync(path.join(dir, LOCK_FILE), `${pid} ${ticks(pid)}\n`);
    await withStderr(async (lines) => {
      await acquireLock(dir, 300);
      assert.ok(
        lines.some((l) => l.includes(`crawler ${pid} did not stop in 300 ms; killing it`)),
        lines.join(''),
      );
    });
    assert.equal(await holder.exit, 'SIGKILL');
    assert.equal(lockPid(dir), process.pid);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
