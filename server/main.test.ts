/**
 * `npm start`'s own process (server/main.ts) as a person starts it: a bad setting stops it with one
 * line, and with nothing set it serves on 127.0.0.1 only, with its data in ./data of where it started.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test-support/app-process.ts';
import { waitFor } from '../test-support/wait-for.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const TSX = import.meta.resolve('tsx');

/** Starts server/main.ts in `cwd` with only `env` beyond PATH and HOME (no DATA_DIR, HOST or PORT unless given). */
function startMain(cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', TSX, MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CRAWL_WORKERS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Whether a TCP connection to host:port is accepted. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test('a bad setting stops the start with exit code 2 and one line naming the variable and the problem', async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-'));
  try {
    for (const [env, line] of [
      [{ PORT: 'abc' }, 'lantern: PORT must be an integer between 1 and 65535, got "abc"\n'],
      [{ CRAWL_DELAY_MS: '-5' }, 'lantern: CRAWL_DELAY_MS must be an integer between 0 and 3600000, got "-5"\n'],
    ] as const) {
      const main = startMain(cwd, env);
      assert.equal(await main.exited, 2, JSON.stringify(env));
      assert.equal(main.stderr(), line);
      assert.equal(main.stdout(), '');
    }
    assert.equal(existsSync(path.join(cwd, 'data')), false, 'nothing was created');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('with nothing set it serves on 127.0.0.1 only, keeps its data in ./data, and stops cleanly on SIGTERM', { timeout: 60_000 }, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-'));
  const port = await freePort(); // PORT is the one setting given: 3000 may be taken on a test machine
  const main = startMain(cwd, { PORT: String(port) });
  try {
    const health = await waitFor(async () => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`);
        return res.ok && ((await res.json()) as { ok: boolean });
      } catch {
        return false;
      }
    }, { timeoutMs: 30_000, message: `the server to answer on 127.0.0.1:${port}; stderr: ${main.stderr()}` });
    assert.equal(health.ok, true);
    assert.equal(await accepts('127.0.0.2', port), false, 'not reachable on another address: bound to 127.0.0.1 only');
    assert.ok(existsSync(path.join(cwd, 'data', 'lantern.db')), './data/lantern.db was created where it started');
    main.child.kill('SIGTERM');
    assert.equal(await main.exited, 0);
  } finally {
    main.child.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  }
});
