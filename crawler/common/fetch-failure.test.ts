import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errors } from 'undici';
import { classifyError, describeBytes, FetchFailure } from './fetch-failure.ts';

const LIMITS = { connectTimeoutMs: 10_000, headersTimeoutMs: 15_000, bodyTimeoutMs: 15_000, totalTimeoutMs: 30_000 };
const URL_ = 'https://a.example:8443/page';

test('byte counts read like a person writes them', () => {
  assert.equal(describeBytes(1), '1 byte');
  assert.equal(describeBytes(512), '512 bytes');
  assert.equal(describeBytes(1536), '1.5 KiB');
  assert.equal(describeBytes(5 * 1024 * 1024), '5 MiB');
  assert.equal(describeBytes(100 * 1024 * 1024), '100 MiB');
  assert.equal(describeBytes(1024 ** 3), '1 GiB');
});

test('timeouts name the limit that was hit, in seconds', () => {
  const cases: Array<[unknown, string]> = [
    [new errors.HeadersTimeoutError(), 'fetcher: a.example:8443 sent no response headers within 15 s'],
    [new errors.BodyTimeoutError(), 'fetcher: a.example:8443 stopped sending the body (nothing more came within 15 s)'],
    [new errors.ConnectTimeoutError(), 'fetcher: could not connect to a.example:8443 within 10 s'],
    [
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      'fetcher: a.example:8443 did not finish its answer within 30 s',
    ],
  ];
  for (const [err, message] of cases) {
    const f = classifyError(err, URL_, LIMITS);
    assert.deepEqual([f.kind, f.code, f.message], ['retryable', 'timeout', message]);
  }
});

test('network and TLS failures get a kind, a code and words', () => {
  const errno = (code: string) => Object.assign(new Error(code), { code });
  const cases: Array<[unknown, string, string, RegExp]> = [
    [errno('ECONNREFUSED'), 'retryable', 'connection-refused', /refused the connection \(nothing listens there\)$/],
    [errno('ECONNRESET'), 'retryable', 'connection-reset', /closed the connection mid-answer$/],
    [new errors.SocketError('other side closed'), 'retryable', 'connection-reset', /closed the connection mid-answer$/],
    [errno('ENOTFOUND'), 'retryable', 'dns', /^fetcher: the host name a\.example:8443 does not resolve$/],
    [errno('EAI_AGAIN'), 'retryable', 'dns', /could not be resolved right now/],
    [
      errno('DEPTH_ZERO_SELF_SIGNED_CERT'),
      'fatal',
      'tls',
      /TLS handshake with a\.example:8443 failed: its certificate is self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/,
    ],
    [errno('CERT_HAS_EXPIRED'), 'fatal', 'tls', /its certificate has expired/],
    [errno('ERR_TLS_CERT_ALTNAME_INVALID'), 'fatal', 'tls', /its certificate is for another name/],
    [errno('HPE_INVALID_CONSTANT'), 'fatal', 'bad-response', /malformed HTTP response \(HPE_INVALID_CONSTANT\)$/],
    [new Error('something odd'), 'retryable', 'network', /request to a\.example:8443 failed: something odd$/],
  ];
  for (const [err, kind, code, message] of cases) {
    const f = classifyError(err, URL_, LIMITS);
    assert.equal(f.kind, kind, code);
    assert.equal(f.code, code);
    assert.match(f.message, message);
  }
});

test('a FetchFailure passes through, also as the cause of another error', () => {
  const original = new FetchFailure('fatal', 'private-address', 'fetcher: x resolves to the private address 127.0.0.1');
  assert.equal(classifyError(original, URL_), original);
  assert.equal(classifyError(new TypeError('fetch failed', { cause: original }), URL_), original);
});
