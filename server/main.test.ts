/**
 * `npm start`'s own process as a person starts it: the command its start script runs after the build
 * (read from package.json: `node` on the compiled server, dist/server/main.js, built here first with
 * `npm run build:app` unless that build is newer than every source). A bad setting stops it with one line, and with nothing set it serves on
 * 127.0.0.1 only, with its data in ./data of where it started. Built, it crawls a page and a PDF (its
 * crawler processes and the PDF thread are found from dist/).
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnMain } from '../test-support/app-process.ts';
import { SERVER_BUILD, staleBuild } from '../test-support/build-freshness.ts';
import { waitFor } from '../test-support/wait-for.ts';
import { startTestWeb } from '../test-support/test-web.ts';
import { textPdf } from '../test-support/pdf-files.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * What `npm start` runs once the build is over: the last command of its script, e.g.
 * `exec node --max-semi-space-size=1 dist/server/main.js`, as node's arguments (the script's path absolute).
 */
function startArguments(): string[] {
  const script = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const [command, ...args] = script
    .split('&&')
    .at(-1)!
    .trim()
    .replace(/^exec\s+/, '')
    .split(/\s+/);
  assert.equal(command, 'node', `npm start ends by running node: ${script}`);
  return args.map((a) => (a.startsWith('-') ? a : path.join(ROOT, a)));
}

let startArgs: string[];
before(() => {
  // The server, crawler, db and shared code, as npm start builds them; only when the build is missing or older
  // than a source, so under `npm test` (built first) dist/ stays as the browser tests, running meanwhile, found it.
  if (staleBuild(SERVER_BUILD) !== undefined) execFileSync('npm', ['run', 'build:app'], { cwd: ROOT, stdio: 'ignore' });
  startArgs = startArguments();
  assert.ok(existsSync(startArgs.at(-1)!), `the build made ${startArgs.at(-1)}`);
});

/** Starts npm start's server process in `cwd` with only `env` beyond PATH and HOME (no DATA_DIR, HOST or PORT unless given). */
function startMain(cwd: string, env: Record<string, string>) {
  return spawnMain(startArgs, cwd, env);
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

test('bound to every interface without a secret it refuses to start: exit code 2, one line saying how to set one, nothing created', {
  timeout: 30_000,
}, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-'));
  const started: Array<ReturnType<typeof startMain>> = [];
  try {
    for (const [env, line] of [
      [
        { HOST: '0.0.0.0' },
        'lantern: HOST=0.0.0.0 makes Lantern reachable from other machines, so it needs a secret: set LANTERN_SECRET to a secret ' +
          'of at least 16 characters, for example LANTERN_SECRET=$(openssl rand -base64 24) (or set HOST=127.0.0.1 to keep it on this machine)\n',
      ],
      [
        { HOST: '0.0.0.0', LANTERN_SECRET: 'too short' },
        'lantern: LANTERN_SECRET must be 16 to 1024 characters with no control characters and no spaces ' +
          'at either end (got 9 characters); for example LANTERN_SECRET=$(openssl rand -base64 24)\n',
      ],
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

test('with a secret it serves on every interface, and every route but health asks for a sign-in', {
  timeout: 60_000,
}, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-'));
  const port = await freePort();
  const secret = 'main test secret 0123456789';
  const main = startMain(cwd, { PORT: String(port), HOST: '0.0.0.0', LANTERN_SECRET: secret });
  try {
    await waitFor(
      async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/api/health`)).ok;
        } catch {
          return false;
        }
      },
      { timeoutMs: 30_000, message: `the server to answer on 127.0.0.1:${port}; stderr: ${main.stderr()}` },
    );
    assert.equal(await accepts('127.0.0.2', port), true, 'bound to every interface');
    const anonymous = await fetch(`http://127.0.0.1:${port}/api/seeds`);
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { error: string }).error, 'unauthenticated');
    const script = await fetch(`http://127.0.0.1:${port}/api/seeds`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(script.status, 200);
    main.child.kill('SIGTERM');
    assert.equal(await main.exited, 0);
    assert.ok(!main.stdout().includes(secret) && !main.stderr().includes(secret), 'the secret is not in the log');
  } finally {
    main.child.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('with nothing set it serves on 127.0.0.1 only, keeps its data in ./data, and stops cleanly on SIGTERM', {
  timeout: 60_000,
}, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-'));
  const port = await freePort(); // PORT is the one setting given: 3000 may be taken on a test machine
  const main = startMain(cwd, { PORT: String(port) });
  try {
    const health = await waitFor(
      async () => {
        try {
          const res = await fetch(`http://127.0.0.1:${port}/api/health`);
          return res.ok && ((await res.json()) as { ok: boolean });
        } catch {
          return false;
        }
      },
      { timeoutMs: 30_000, message: `the server to answer on 127.0.0.1:${port}; stderr: ${main.stderr()}` },
    );
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

test('built, it crawls a loopback page and the PDF it links to, and both are found by search', {
  timeout: 90_000,
}, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-'));
  const port = await freePort();
  const pdf = await textPdf({ title: 'Built manual', pages: [{ lines: ['The quokka chapter'], heading: true }] });
  const web = await startTestWeb([
    {
      pages: {
        '/': '<!doctype html><title>Built home</title><p>a wombat page <a href="/manual.pdf">the manual</a></p>',
        '/manual.pdf': { body: pdf, headers: { 'content-type': 'application/pdf' } },
      },
    },
  ]);
  const site = web.sites[0];
  const main = startMain(cwd, { PORT: String(port), CRAWL_ALLOW_PRIVATE: '1', CRAWL_DELAY_MS: '0' });
  const api = `http://127.0.0.1:${port}/api`;
  const search = async (q: string) => {
    const res = await fetch(`${api}/search?q=${q}`);
    return res.ok ? ((await res.json()) as { results: Array<{ url: string; fileType: string }> }).results : [];
  };
  try {
    await waitFor(
      async () => {
        try {
          return (await fetch(`${api}/health`)).ok;
        } catch {
          return false;
        }
      },
      { timeoutMs: 30_000, message: `the server to answer on 127.0.0.1:${port}; stderr: ${main.stderr()}` },
    );
    const added = await fetch(`${api}/seeds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/'), depth: 1 }),
    });
    assert.equal(added.status, 201);
    const found = await waitFor(
      async () => {
        const [page, doc] = [await search('wombat'), await search('quokka')];
        return page.length === 1 && doc.length === 1 && { page: page[0], doc: doc[0] };
      },
      { timeoutMs: 60_000, intervalMs: 250, message: `both documents to be searchable; stderr: ${main.stderr()}` },
    );
    assert.deepEqual([found.page.url, found.page.fileType], [site.url('/'), 'html']);
    assert.deepEqual([found.doc.url, found.doc.fileType], [site.url('/manual.pdf'), 'pdf']);
    main.child.kill('SIGTERM');
    assert.equal(await main.exited, 0);
  } finally {
    main.child.kill('SIGKILL');
    await web.close();
    rmSync(cwd, { recursive: true, force: true });
  }
});
