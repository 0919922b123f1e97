/**
 * What the server hears from the primary's WriteOutage when the database refuses writes: on PostgreSQL, a
 * server stopped (a real throwaway cluster halted as a crash would, its real errors) is reported once as an
 * outage with its state (unreachable, since when, where: never the password) and cleared by `recovered` once a
 * write works again; a PostgreSQL out of room answers but refuses; on SQLite, today's words for a full disk.
 * Time is ManualTime's: retries are timers the test advances.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPgPool } from '../../db/pg/pool.ts';
import { pgStorageError } from '../../db/storage-error.ts';
import { ManualTime } from '../../test-support/manual-time.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import type { PrimaryToServer } from '../common/protocol.ts';
import { WriteOutage } from './write-outage.ts';

/** 2026-12-07T03:00:00Z, the outage's first failure. */
const T0 = Date.UTC(2026, 11, 7, 3, 0, 0);

/** A WriteOutage on a ManualTime clock, recording what it tells the server and how often it retries. */
function outage(databaseUrl: string | null) {
  const time = new ManualTime(T0);
  const server: PrimaryToServer[] = [];
  let retries = 0;
  const o = new WriteOutage({
    clock: time.clock,
    timers: time,
    dataDir: '/data',
    databaseUrl,
    toServer: (msg) => server.push(msg),
    log: () => undefined,
    fatal: (message) => assert.fail(`not fatal: ${message}`),
    retry: () => {
      retries++;
    },
  });
  return { time, server, o, retries: () => retries };
}

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

test('PostgreSQL halted: the server hears "database unreachable since …" once, with the state; recovered clears it', async () => {
  const url = await cluster.createDatabase();
  const secretUrl = url.replace('lantern@', 'lantern:hunter2@');
  const pool = openPgPool(url, { warn: () => undefined });
  try {
    await pool.query('SELECT 1');
    cluster.halt();
    const refused = await pool.query('SELECT 1').then(
      () => assert.fail('PostgreSQL answered while halted'),
      (err: unknown) => err,
    );
    const p = outage(secretUrl);
    p.o.failed(pgStorageError(refused, 'storing results'), 'storing results');
    await p.time.advance(250);
    assert.equal(p.retries(), 1, 'retried after the first wait');
    const again = await pool.query('SELECT 1').then(
      () => assert.fail('PostgreSQL answered while halted'),
      (err: unknown) => err,
    );
    p.o.failed(pgStorageError(again, 'storing results'), 'storing results');

    const errors = p.server.filter((m) => m.type === 'error');
    assert.equal(errors.length, 1, `told once: ${JSON.stringify(p.server)}`);
    const [report] = errors;
    assert.ok(report.type === 'error' && report.storage !== undefined, JSON.stringify(report));
    const where = url.replace('postgres://', '');
    assert.deepEqual(
      { ...report.storage, reason: undefined, message: undefined },
      {
        engine: 'postgres',
        reachable: false,
        writable: false,
        since: '2026-12-07T03:00:00.000Z',
        reason: undefined,
        effect:
          "The crawl is paused; what was fetched is kept and stored when it answers again; search answers from this server's copy.",
        action:
          'start PostgreSQL, or check DATABASE_URL and the network to it; Lantern carries on by itself when it answers',
        message: undefined,
        seenBy: 'crawler',
      },
    );
    assert.match(
      report.message,
      new RegExp(
        `^database unreachable since 2026-12-07T03:00:00Z: PostgreSQL at ${where} does not answer \\((ECONNREFUSED|Connection terminated|57P01).*\\)\\. The crawl is paused; what was fetched is kept and stored when it answers again; search answers from this server's copy\\.$`,
      ),
    );
    assert.equal(report.storage?.message, report.message, 'the state and the words are one');
    assert.ok(!report.message.includes('hunter2'), 'never the password');

    cluster.resume();
    await p.time.advance(500);
    let answered = false;
    for (let attempt = 0; attempt < 4 && !answered; attempt++) {
      // The pool may hold a connection the halt cut: each try either answers or discards it, as a retry would.
      answered = await pool.query('SELECT 1').then(
        () => true,
        () => false,
      );
    }
    assert.ok(answered, 'PostgreSQL answers again after resume');
    p.o.succeeded();
    assert.deepEqual(
      p.server.filter((m) => m.type === 'recovered').map((m) => m.message),
      ['the database takes writes again after 0.8 s; the crawl continues'],
    );
    assert.equal(p.o.waiting, false);
  } finally {
    await pool.end();
  }
});

test('PostgreSQL out of room answers but refuses writes; SQLite keeps its words for a full disk', () => {
  const full = outage('postgres://lantern@127.0.0.1:5432/lantern');
  const noRoom = Object.assign(new Error('could not extend file "base/1/2": No space left on device'), {
    code: '53100',
  });
  full.o.failed(pgStorageError(noRoom, 'storing results'), 'storing results');
  const [pgReport] = full.server;
  assert.ok(pgReport?.type === 'error');
  assert.equal(pgReport.storage?.reachable, true);
  assert.equal(
    pgReport.message,
    'database refuses writes since 2026-12-07T03:00:00Z: PostgreSQL at lantern@127.0.0.1:5432/lantern refuses writes ' +
      '(53100: could not extend file "base/1/2": No space left on device). The crawl is paused; what was fetched is kept ' +
      "and stored when it answers again; search answers from this server's copy.",
  );

  const disk = outage(null);
  disk.o.failed(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), 'storing results');
  const [sqliteReport] = disk.server;
  assert.ok(sqliteReport?.type === 'error');
  assert.equal(
    sqliteReport.message,
    'cannot write to the database in /data (SQLITE_FULL: database or disk is full): is the disk full or the file ' +
      'read-only? The crawl is paused; what was fetched is kept and stored as soon as the database takes writes again',
  );
  assert.deepEqual(
    [sqliteReport.storage?.engine, sqliteReport.storage?.reachable, sqliteReport.storage?.since],
    ['sqlite', true, '2026-12-07T03:00:00.000Z'],
  );
});

test("an error that is not the machine's (a constraint) is fatal, not an outage", () => {
  const time = new ManualTime(T0);
  const fatal: string[] = [];
  const server: PrimaryToServer[] = [];
  const o = new WriteOutage({
    clock: time.clock,
    timers: time,
    dataDir: '/data',
    databaseUrl: 'postgres://lantern@127.0.0.1:5432/lantern',
    toServer: (msg) => server.push(msg),
    log: () => undefined,
    fatal: (message) => fatal.push(message),
    retry: () => undefined,
  });
  o.failed(
    pgStorageError(Object.assign(new Error('violates foreign key constraint'), { code: '23503' }), 'storing results'),
    'storing results',
  );
  assert.equal(fatal.length, 1);
  assert.deepEqual(server, []);
});
