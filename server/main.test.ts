/**
 * `npm start`'s own process (server/main.ts) as a person starts it: a bad setting stops it with one
 * line, and with nothing set it serves on 127.0.0.1 only, with its data in ./data of where it started.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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

test('bound to every interface without a secret it refuses to start: exit code 2, one line saying how to set one, nothing created', { timeout: 30_000 }, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-'));
  const started: Array<ReturnType<typeof startMain>> = [];
  try {
    for (const [env, line] of [
      [{ HOST: '0.0.0.0' }, 'lantern: HOST=0.0.0.0 makes Lantern reachable from other machines, so it needs a secret: set LANTERN_SECRET to a secret ' +
        'of at least 16 characters, for example LANTERN_SECRET=$(openssl rand -base64 24) (or set HOST=127.0.0.1 to keep it on this machine)\n'],
      [{ HOST: '0.0.0.0', LANTERN_SECRET: 'too short' }, 'lantern: LANTERN_SECRET must be 16 to 1024 characters with no control characters and no spaces ' +
        'at either end (got 9 characters); for example LANTERN_SECRET=$(openssl rand -base64 24)\n'],
    ] as const) {
      const main = startMain(cwd, env);
      started.push(main);
      assert.equal(await main.exited, 2, JSON.stringify(env));
      assert.equal(main.stderr(), line);
      assert.equal(main.stdout(), '');
    }
    assert.deepEqual(readdirSync(cwd), [], 'nothing was created: no ./data, no database, no lock');
  } finally {
    for (const main of started) main.child.kill('SIGKILL'); // one that started by mistake
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('with a secret it serves on every interface, and every route but health asks for a sign-in', { timeout: 60_000 }, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-'));
  const port = await freePort();
  const secret = 'main test secret 0123456789';
  const main = startMain(cwd, { PORT: String(port), HOST: '0.0.0.0', LANTERN_SECRET: secret });
  try {
    await waitFor(async () => {
      try {
        return (await fetch(`http://127.0.0.1:${port}/api/health`)).ok;
      } catch {
        return false;
      }
    }, { timeoutMs: 30_000, message: `the server to answer on 127.0.0.1:${port}; stderr: ${main.stderr()}` });
    assert.equal(await accepts('127.0.0.2', port), true, 'bound to every interface');
    const anonymous = await fetch(`http://127.0.0.1:${port}/api/seeds`);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { error: string }).error, 'unauthenticated');
    const script = await fetch(`http://127.0.0.1:${port}/api/seeds`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(script.status, 200);
    main.child.kill('SIGTERM');
    assert.equal(await main.exited, 0);
    assert.ok(!main.stdout().includes(secret) && !main.stderr().includes(secret), 'the secret is not in the log');
  } finally {
    main.child.kill('SIGKILL');
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
