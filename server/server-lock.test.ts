/**
 * One Lantern server per DATA_DIR: a second one (on another port) refuses to start and says why, rather
 * than forking a second crawler primary that would take the crawl over from the first one's.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { acquireServerLock, DataDirInUseError, releaseServerLock, SERVER_LOCK_FILE } from './server-lock.ts';
import { startTicks } from '../crawler/coordination/primary-lock.ts';
import { startAppProcess } from '../test-support/app-process.ts';
import { waitFor } from '../test-support/wait-for.ts';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-server-lock-'));
  dirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('server lock', () => {
  test('taken when free, refused while a live server holds it, given back only by its holder', () => {
    const dir = tempDir();
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(path.join(dir, SERVER_LOCK_FILE), `${sleeper.pid} ${startTicks(sleeper.pid!) ?? ''}\n`);
      assert.throws(
        () => acquireServerLock(dir),
        (err: unknown) => {
          assert.ok(err instanceof DataDirInUseError);
          assert.match(
            err.message,
            new RegExp(`DATA_DIR ${dir} is already used by another Lantern server \\(pid ${sleeper.pid}\\)`),
          );
          assert.match(err.message, /set DATA_DIR to another directory/);
          return true;
        },
      );
      releaseServerLock(dir);
      assert.ok(existsSync(path.join(dir, SERVER_LOCK_FILE)), "another process's lock is not removed");
    } finally {
      sleeper.kill('SIGKILL');
    }
    const free = tempDir();
    acquireServerLock(free);
    assert.equal(readFileSync(path.join(free, SERVER_LOCK_FILE), 'utf8').split(' ')[0], String(process.pid));
    releaseServerLock(free);
    assert.ok(!existsSync(path.join(free, SERVER_LOCK_FILE)));
  });

  test('a lock left by a server that is gone, or an unreadable one, is taken over', () => {
    const dir = tempDir();
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    writeFileSync(path.join(dir, SERVER_LOCK_FILE), `${gone.stdout.trim()} 12345\n`);
    acquireServerLock(dir);
    assert.equal(readFileSync(path.join(dir, SERVER_LOCK_FILE), 'utf8').split(' ')[0], String(process.pid));
    writeFileSync(path.join(dir, SERVER_LOCK_FILE), 'garbage');
    acquireServerLock(dir);
    assert.equal(readFileSync(path.join(dir, SERVER_LOCK_FILE), 'utf8').split(' ')[0], String(process.pid));
  });

  test('a second real server on the same DATA_DIR exits with the reason; the first keeps its crawler', {
    timeout: 90_000,
  }, async () => {
    const dir = tempDir();
    const first = await startAppProcess({ dataDir: dir });
    try {
      const primary = await waitFor(() => first.primaryPid(), { message: "the first server's crawler primary" });
      await assert.rejects(startAppProcess({ dataDir: dir }), (err: Error) => {
        assert.match(
          err.message,
          new RegExp(
            `lantern: server-lock: DATA_DIR ${dir} is already used by another Lantern server \\(pid ${first.pid}\\)`,
          ),
        );
        return true;
      });
      assert.equal((await first.getJson<{ ok: boolean }>('/api/health')).ok, true);
      assert.equal(first.primaryPid(), primary, "the first server's crawler primary was left alone");
      await first.kill('SIGTERM');
      assert.ok(!existsSync(path.join(dir, SERVER_LOCK_FILE)), 'a server that stops gives DATA_DIR back');
      const again = await startAppProcess({ dataDir: dir });
      await again.kill('SIGTERM');
    } finally {
      first.killGroup();
    }
  });
});
