import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';

test('health answers ok; unknown API paths are JSON 404s; status and domains answer while the crawler is down', async () => {
  const t = await createTestApp({ PUBLIC_HOSTS: '127.0.0.1:4000' }); // a name of its own, for the OpenSearch template
  try {
    const health = await t.app.inject({ method: 'GET', url: '/api/health' });
    assert.equal(health.statusCode, 200);
    assert.equal(health.json().ok, true);
    const missing = await t.app.inject({ method: 'GET', url: '/api/nope' });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().error, 'not-found');
    const status = await t.app.inject({ method: 'GET', url: '/api/status' });
    assert.equal(status.statusCode, 200);
    assert.deepEqual(
      {
        pages: status.json().pages,
        queued: status.json().queued,
        workers: status.json().workers,
        crawler: status.json().crawler,
      },
      { pages: 0, queued: 0, workers: 0, crawler: 'stopped' },
    );
    const domains = await t.app.inject({ method: 'GET', url: '/api/domains' });
    assert.deepEqual(domains.json().domains, []);
    const unknownHost = await t.app.inject({ method: 'GET', url: '/api/domains/nowhere.test/requests' });
    assert.equal(unknownHost.statusCode, 404);
    const os = await t.app.inject({ method: 'GET', url: '/opensearch.xml', headers: { host: '127.0.0.1:4000' } });
    assert.match(os.body, /template="http:\/\/127\.0\.0\.1:4000\/\?q=\{searchTerms\}"/);
  } finally {
    await t.close();
  }
});
