/** Which errors are the machine's (waited out) and which are Lantern's bugs, on both engines. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  describeStorageOutage,
  pgStorageError,
  StorageError,
  storageErrorAdvice,
  storageErrorDetail,
  storageFault,
} from './storage-error.ts';

const coded = (code: string, message: string) => Object.assign(new Error(message), { code });

test('PostgreSQL out of reach, shutting down, out of room or in a deadlock is retryable; a constraint is a bug', () => {
  const retryable = [
    coded('57P01', 'terminating connection due to administrator command'),
    coded('57P03', 'the database system is starting up'),
    coded('25P03', 'terminating connection due to idle-in-transaction timeout'),
    coded('08006', 'connection failure'),
    coded('53100', 'could not extend file: No space left on device'),
    coded('53300', 'sorry, too many clients already'),
    coded('40P01', 'deadlock detected'),
    coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
    coded('ECONNRESET', 'read ECONNRESET'),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
  ];
  for (const err of retryable) {
    const classified = pgStorageError(err, 'storing results');
    assert.ok(classified instanceof StorageError);
    assert.equal(classified.retryable, true, err.message);
    assert.equal(classified.cause, err);
    assert.match(storageErrorDetail(classified) ?? '', /pg: storing results failed/);
  }
  assert.equal(pgStorageError(new Error('Connection terminated unexpectedly'), 'x').code, 'PG_CONNECTION_LOST');
  for (const err of [
    coded('23503', 'insert or update on table "frontier" violates foreign key constraint'),
    coded('42P01', 'relation "frontier" does not exist'),
    new TypeError('cannot read properties of undefined'),
  ]) {
    const classified = pgStorageError(err, 'storing results');
    assert.equal(classified.retryable, false, err.message);
    assert.equal(storageErrorDetail(classified), null, 'a bug: the crawler restarts rather than waits');
  }
});

test("SQLite's storage errors keep their classification; the advice names the engine at fault", () => {
  assert.equal(
    storageErrorDetail(coded('SQLITE_FULL', 'database or disk is full')),
    'SQLITE_FULL: database or disk is full',
  );
  assert.equal(storageErrorDetail(coded('SQLITE_CONSTRAINT_FOREIGNKEY', 'FOREIGN KEY constraint failed')), null);
  const pgDetail = storageErrorDetail(pgStorageError(coded('ECONNREFUSED', 'connect ECONNREFUSED'), 'storing results'));
  assert.match(
    storageErrorAdvice('/data', pgDetail ?? ''),
    /^database unreachable \(.*ECONNREFUSED.*\): is PostgreSQL running/,
  );
  assert.match(storageErrorAdvice('/data', 'SQLITE_FULL: full'), /^cannot write to the database in \/data/);
});

test('storageFault: the engine decides what a raw error is; a stopped PostgreSQL does not answer, a full one refuses', () => {
  const refused = coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
  assert.deepEqual(storageFault(refused, 'postgres'), {
    engine: 'postgres',
    reachable: false,
    detail: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432',
  });
  assert.deepEqual(
    storageFault(pgStorageError(refused, 'storing results'), 'postgres')?.detail,
    'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432',
  );
  assert.equal(storageFault(coded('53100', 'No space left on device'), 'postgres')?.reachable, true);
  assert.equal(storageFault(coded('23505', 'duplicate key'), 'postgres'), null, 'a bug, not an outage');
  assert.equal(storageFault(refused, 'sqlite'), null, 'no socket under SQLite: not an outage of it');
  assert.deepEqual(storageFault(coded('SQLITE_FULL', 'database or disk is full'), 'postgres'), {
    engine: 'sqlite',
    reachable: true,
    detail: 'SQLITE_FULL: database or disk is full',
  });
});

test('describeStorageOutage: the words a person reads, the address without its password', () => {
  const o = describeStorageOutage(
    { engine: 'postgres', reachable: false, detail: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432' },
    { since: Date.UTC(2026, 11, 7, 3, 0, 1, 500), where: 'lantern@127.0.0.1:5432/lantern', seenBy: 'server' },
  );
  assert.equal(o.since, '2026-12-07T03:00:01.500Z');
  assert.equal(
    o.message,
    'database unreachable since 2026-12-07T03:00:01Z: PostgreSQL at lantern@127.0.0.1:5432/lantern does not answer ' +
      '(ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432). Seeds, labels, imports and sign-in wait until it answers ' +
      "(try again then); search answers from this server's copy.",
  );
});
