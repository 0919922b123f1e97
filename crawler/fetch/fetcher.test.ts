/**
 * fetchRaw against a real loopback server: decompression, the cap with and without truncation, bodies
 * that are not wanted, and a body that is not what its Content-Encoding says. Also the limits a crawl
 * gets with no CRAWL_TIMEOUT_MS set.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { createAgent, fetchLimits, fetchRaw, FetchFailure, FETCH_DEFAULTS } from './fetcher.ts';
import type { WorkerSettings } from '../common/protocol.ts';
import { loadConfig } from '../../shared/config.ts';
import { waitFor } from '../../test-support/wait-for.ts';

const SETTINGS: WorkerSettings = { userAgent: 'LanternBot/0.1', allowPrivate: true, ...fetchLimits(4000) };
const PAGE = `<!doctype html><title>Hello</title><p>${'words '.repeat(2000)}</p>`;
const written = new Map<string, number>();
/** Bytes written by each /big response when its connection closed. */
const closed: number[] = [];
let server: http.Server;
let base: string;
const agent = createAgent(SETTINGS);

before(async () => {
  server = http.createServer((req, res) => {
    switch (req.url) {
      case '/gzip':
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(zlib.gzipSync(PAGE));
        break;
      case '/br':
        res
          .writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' })
          .end(zlib.brotliCompressSync(PAGE));
        break;
      case '/deflate':
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'deflate' }).end(zlib.deflateSync(PAGE));
        break;
      case '/not-gzip':
        res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(PAGE);
        break;
      case '/big': {
        // 64 MiB, written as the client reads: counts what actually left the server.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.once('close', () => closed.push(written.get(req.url!) ?? 0));
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let n = 0;
        const pump = (): void => {
          while (n < 1024) {
            n++;
            written.set(req.url!, n * chunk.length);
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          res.end();
        };
        pump();
        break;
      }
      default:
        res.writeHead(404, { 'content-type': 'text/html' }).end('<p>not here</p>'.repeat(1000));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const get = (
  path: string,
  opts: Partial<{ cap: number; truncateOk: boolean; wantBody: (s: number) => boolean }> = {},
) =>
  fetchRaw(`${base}${path}`, {
    agent,
    settings: SETTINGS,
    wantBody: opts.wantBody ?? ((s) => s === 200),
    cap: opts.cap ?? FETCH_DEFAULTS.maxBodyBytes,
    truncateOk: opts.truncateOk ?? false,
  });

test('gzip, brotli and deflate bodies are decompressed', async () => {
  for (const path of ['/gzip', '/br', '/deflate']) {
    const raw = await get(path);
    assert.equal(raw.body?.toString(), PAGE, path);
  }
});

test('a body that is not what Content-Encoding says fails as bad-encoding (fatal, in words)', async () => {
  await assert.rejects(get('/not-gzip'), (err: unknown) => {
    assert.ok(err instanceof FetchFailure);
    assert.deepEqual([err.kind, err.code], ['fatal', 'bad-encoding']);
    assert.match(
      err.message,
      /^fetcher: 127\.0\.0\.1:\d+ sent a body that is not valid gzip \(Content-Encoding says so\): /,
    );
    return true;
  });
});

test('over the cap: refused, or (robots.txt) truncated to the cap; the server stops sending either way', async () => {
  await assert.rejects(get('/big', { cap: 1024 * 1024 }), /sent a body larger than 1 MiB; stopped reading/);
  const raw = await get('/big', { cap: 1024 * 1024, truncateOk: true });
  assert.equal(raw.body?.length, 1024 * 1024);
  await waitFor(() => closed.length === 2, { message: 'both responses to be closed by the client' });
  for (const bytes of closed)
    assert.ok(
      bytes < 20 * 1024 * 1024,
      `the server wrote ${(bytes / 1048576).toFixed(1)} MiB of 64 before the client hung up`,
    );
});

test('a body that is not wanted (an error page) is not read', async () => {
  const raw = await get('/missing');
  assert.equal(raw.status, 404);
  assert.equal(raw.body, null);
});

test('with CRAWL_TIMEOUT_MS unset, a site gets 15 s to send its headers: less than the 20 s of the "headers after 20 s" site', () => {
  const limits = fetchLimits(loadConfig({}).crawlTimeoutMs); // as crawler/primary.ts computes them
  assert.equal(limits.totalTimeoutMs, 30_000);
  assert.equal(limits.headersTimeoutMs, 15_000);
  assert.ok(limits.headersTimeoutMs < 20_000, 'a site that sends its headers only after 20 s is cut off first');
});
