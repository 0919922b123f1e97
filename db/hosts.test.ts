import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { hostQueries, newHostRow } from './hosts.ts';
import { openDatabase } from './open.ts';

v8.setFlagsFromString('--allow-natives-syntax');
/** V8's own answer: whether an object keeps its properties in its hidden class (fast) or as a dictionary. */
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

/** A time as the crawler stores it (ms since 1970): too big for V8's small integers, as real rows' times are. */
const T = Date.UTC(2026, 11, 4);

test('hosts read back at start are what was stored, each a compact object rather than a dictionary', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-hosts-'));
  const db = openDatabase(dir);
  try {
    // Rows written as by an earlier run, value by value: until it reads them this process builds no object with
    // a row's keys one by one (a spread of a row would do that), whose hidden classes V8 would then follow and
    // keep the rows fast by chance, as a test but not the primary at its start would.
    const insert = db.prepare(
      `INSERT INTO hosts (origin, host, robots_status, robots_http_status, robots_etag, robots_rules, robots_fetched_at,
         robots_expires_at, crawl_delay_ms, backoff_ms, backoff_until, backoff_reason, consecutive_errors,
         last_request_start, last_request_end, fetched_count, error_count, last_error, updated_at)
       VALUES (?, ?, 'pending', NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL, 0, NULL, NULL, 0, 0, NULL, ?),
              (?, ?, 'ok', 200, '"v1"', '{"rules":[]}', ?, ?, 1500, 4000, ?, 'HTTP 503', 2, ?, ?, 7, 2, 'HTTP 503', ?)`,
    );
    const [a, b] = ['127.0.0.2:8080', '127.0.0.3:8080'];
    insert.run(`http://${a}`, a, T, `http://${b}`, b, T - 86_400_000, T, T + 4_000, T - 50, T - 20, T);
    const read = hostQueries(db).allHosts();

    const known = newHostRow(`http://${b}`, b);
    known.robotsStatus = 'ok';
    known.robotsHttpStatus = 200;
    known.robotsEtag = '"v1"';
    known.robotsRules = '{"rules":[]}';
    known.robotsFetchedAt = T - 86_400_000;
    known.robotsExpiresAt = T;
    known.crawlDelayMs = 1500;
    known.backoffMs = 4000;
    known.backoffUntil = T + 4_000;
    known.backoffReason = 'HTTP 503';
    known.consecutiveErrors = 2;
    known.lastRequestStart = T - 50;
    known.lastRequestEnd = T - 20;
    known.fetchedCount = 7;
    known.errorCount = 2;
    known.lastError = 'HTTP 503';
    assert.deepEqual(
      read.sort((x, y) => x.origin.localeCompare(y.origin)),
      [newHostRow(`http://${a}`, a), known],
    );
    // The primary keeps every known host's row for as long as it runs: as a dictionary, a row of 20
    // columns costs about 0.8 KiB more than as an object of fixed fields.
    for (const row of read) assert.ok(hasFastProperties(row), `${row.origin}: a row with fast properties`);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
