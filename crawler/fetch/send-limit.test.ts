/**
 * A crawler node's send limit (FetchJob.sendBy, send-limit.ts) across the real undici + socket boundary, against
 * a loopback server that logs every connection and request: a request is sent before its limit; past it nothing
 * is sent, whether the limit had passed before the worker began (not even a connection) or passed while the
 * connection was being made (the name's lookup held until then: a worker paused between its first check and the
 * write); the job runner reports such a job `unsent`, not as the site's failure.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { createAgent, fetchLimits, fetchRaw, type Resolver } from './fetcher.ts';
import { RequestNotSent } from './send-limit.ts';
import { machineNow } from '../common/machine-clock.ts';
import { runJob } from '../job-runner.ts';
import type { FetchJob, WorkerSettings } from '../common/protocol.ts';

const SETTINGS: WorkerSettings = { userAgent: 'LanternBot/0.1', allowPrivate: true, ...fetchLimits(4000) };
const requests: string[] = [];
let connections = 0;
let server: http.Server;
let port = 0;

/** Answers every name with the loopback server's address once `until` (the machine clock) has passed. */
function heldDns(until: () => number): Resolver {
  return ((_hostname, _options, callback) => {
    const answer = () =>
      machineNow() > until()
        ? callback(null, [{ address: '127.0.0.1', family: 4 } as LookupAddress])
        : setTimeout(answer, 2);
    answer();
  }) as Resolver;
}

before(async () => {
  server = http.createServer((req, res) => {
    requests.push(req.url!);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const get = (url: string, sendBy: number, resolve?: Resolver) =>
  fetchRaw(url, {
    agent: createAgent(SETTINGS, resolve),
    settings: SETTINGS,
    wantBody: () => true,
    cap: 1024,
    truncateOk: false,
    sendBy,
  });

test('a request whose limit is ahead is sent', async () => {
  requests.length = 0;
  const raw = await get(`http://127.0.0.1:${port}/ahead`, machineNow() + 60_000);
  assert.equal(raw.status, 200);
  assert.deepEqual(requests, ['/ahead']);
});

test('past its limit before the worker began: nothing is sent, not even a connection', async () => {
  requests.length = 0;
  connections = 0;
  await assert.rejects(get(`http://127.0.0.1:${port}/late`, machineNow() - 1), (err: Error) => {
    assert.ok(err instanceof RequestNotSent, `a RequestNotSent, not ${err.name}`);
    assert.match(
      err.message,
      /^fetcher: http:\/\/127\.0\.0\.1:\d+\/late not sent: its send limit passed \d+ ms before/,
    );
    return true;
  });
  assert.deepEqual(requests, []);
  assert.equal(connections, 0);
});

test('the limit passes while the connection is made: the request is not written', async () => {
  requests.length = 0;
  let sendBy = 0;
  const pending = get(
    `http://held.test:${port}/held`,
    (sendBy = machineNow() + 40),
    heldDns(() => sendBy),
  );
  await assert.rejects(pending, RequestNotSent);
  assert.deepEqual(requests, [], 'the site received no request');
});

test('the job runner reports a job not sent as unsent, with no error of the site', async () => {
  requests.length = 0;
  const job: FetchJob = {
    jobId: 7,
    kind: 'page',
    url: `http://127.0.0.1:${port}/job`,
    origin: `http://127.0.0.1:${port}`,
    sendBy: machineNow() - 5,
  };
  const result = await runJob(job, SETTINGS, createAgent(SETTINGS), () => performance.timeOrigin + performance.now());
  assert.equal(result.jobId, 7);
  assert.match(result.unsent ?? '', /not sent: its send limit passed/);
  assert.equal(result.error, null);
  assert.equal(result.status, null);
  assert.deepEqual(requests, []);
});
