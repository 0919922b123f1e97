/**
 * The server's link to the crawler, with a real forked primary: a primary that cannot start says why
 * before it exits, the link keeps that reason (with the restart note) as `lastError`, restarts it with
 * backoff, and clears the problem once a restarted primary has started.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CrawlerLink } from './crawler-link.ts';
import { PRIMARY_HEAP_GROWING_PERCENT } from '../crawler/primary-heap.ts';
import { loadConfig } from '../shared/config.ts';
import { waitFor } from '../test-support/wait-for.ts';

test('a primary that cannot start: the reason reaches lastError, the link retries, and a successful start clears it', {
  timeout: 60_000,
}, async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lantern-link-'));
  const blocker = path.join(root, 'data');
  writeFileSync(blocker, 'a file where DATA_DIR should be\n'); // the primary cannot make its data directory
  const logged: string[] = [];
  const log = {
    info: (m: string) => logged.push(m),
    warn: (m: string) => logged.push(m),
    error: (m: string) => logged.push(m),
  };
  const config = loadConfig({ DATA_DIR: path.join(blocker, 'sub'), CRAWL_WORKERS: '1' });
  const link = new CrawlerLink(log, () => undefined, config, process.env);
  try {
    link.start();
    const error = await waitFor(() => (link.state === 'restarting' && link.lastError) || undefined, {
      timeoutMs: 20_000,
      message: 'the failed start to be reported',
    });
    assert.match(error, /^cannot start: .*ENOTDIR.* \(the crawler exited with code 1; restarting in 500 ms\)$/);
    assert.ok(
      logged.some((m) => m.startsWith('crawler-link: the crawler reported: cannot start: ')),
      logged.join('\n'),
    );

    rmSync(blocker); // fixed: the next attempt can create DATA_DIR
    await waitFor(() => link.state === 'running', { timeoutMs: 20_000, message: 'a restarted primary to start' });
    assert.equal(link.lastError, null, 'the problem is cleared once a primary started');
  } finally {
    await link.stop();
    rmSync(root, { recursive: true, force: true });
  }
});

test('the primary runs with its own heap limit (CRAWL_PRIMARY_HEAP_MB) and growth', {
  timeout: 60_000,
}, async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lantern-link-heap-'));
  const log = { info: () => {}, warn: () => {}, error: () => {} };
  const config = loadConfig({ DATA_DIR: path.join(root, 'data'), CRAWL_WORKERS: '1', CRAWL_PRIMARY_HEAP_MB: '300' });
  const link = new CrawlerLink(log, () => undefined, config, process.env);
  try {
    link.start();
    await waitFor(() => link.state === 'running', { timeoutMs: 20_000, message: 'the primary to start' });
    const pid = link.primaryPid;
    assert.ok(pid, 'a primary is running');
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    assert.deepEqual(
      args.filter((a) => a.startsWith('--max-old-space-size') || a.startsWith('--heap-growing-percent')),
      ['--max-old-space-size=300', `--heap-growing-percent=${PRIMARY_HEAP_GROWING_PERCENT}`],
      args.join(' '),
    );
  } finally {
    await link.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
