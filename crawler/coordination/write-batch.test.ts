/**
 * The primary's write batch on a real SQLite file: writes run together in one transaction; a batch
 * that fails leaves nothing half-written and stays queued, in order, ahead of later writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { WRITE_BATCH_LIMIT, WriteBatch } from './write-batch.ts';

/** A write run by the test's batches: a closure, stamped with the commit's time. */
type Write = (now: number) => void;

/** A batch of closures, each commit one IMMEDIATE transaction on `db` (as intent-applier.ts writes intents). */
function closureBatch(db: Database) {
  const batch = new WriteBatch<Write>();
  const run = async (writes: readonly Write[], now: number) =>
    db
      .transaction(() => {
        for (const w of writes) w(now);
      })
      .immediate();
  return Object.assign(batch, { commit: (now: number) => WriteBatch.prototype.commit.call(batch, now, run) });
}

test('a failed batch rolls back, stays queued in order, and commits once the cause is gone', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-write-batch-'));
  const db = new BetterSqlite3(path.join(dir, 'db.sqlite'));
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  db.exec('CREATE TABLE t (n INTEGER NOT NULL)');
  const insert = db.prepare<[number]>('INSERT INTO t (n) VALUES (?)');
  const rows = () =>
    db
      .prepare<[], { n: number }>('SELECT n FROM t ORDER BY rowid')
      .all()
      .map((r) => r.n);
  const batch = closureBatch(db);
  let failing = true;

  batch.push(() => insert.run(1));
  batch.push(() => {
    if (failing) throw new Error('disk full');
    insert.run(2);
  });
  assert.equal(batch.pending, true);
  await assert.rejects(() => batch.commit(1), /disk full/);
  assert.deepEqual(rows(), [], 'nothing of the failed batch is stored');
  assert.equal(batch.pending, true, 'the writes are still queued');

  batch.push(() => insert.run(3));
  failing = false;
  await batch.commit(2);
  assert.deepEqual(rows(), [1, 2, 3], 'the failed writes ran first, once each');
  assert.equal(batch.pending, false);
});

test('takeUrgent reports a mark once', async () => {
  const db = new BetterSqlite3(':memory:');
  const batch = closureBatch(db);
  assert.equal(batch.takeUrgent(), false);
  batch.markUrgent();
  assert.equal(batch.takeUrgent(), true);
  assert.equal(batch.takeUrgent(), false);
  db.close();
});

test('a batch that reaches WRITE_BATCH_LIMIT writes asks to be committed at once; quiet writes count toward it', async () => {
  const db = new BetterSqlite3(':memory:');
  const batch = closureBatch(db);
  batch.pushQuiet(() => {});
  for (let i = 2; i < WRITE_BATCH_LIMIT; i++) batch.push(() => {});
  assert.equal(batch.takeUrgent(), false, 'one write short of the limit: it waits for the flush timer');
  batch.push(() => {});
  assert.equal(batch.takeUrgent(), true, 'at the limit: committed now');
  await batch.commit(1);
  batch.push(() => {});
  assert.equal(batch.takeUrgent(), false, 'a new batch starts small');
  db.close();
});

test('each write runs with the time of the commit that runs it, also when a failed batch runs again later', async () => {
  const db = new BetterSqlite3(':memory:');
  const batch = closureBatch(db);
  const times: number[] = [];
  let failing = true;
  batch.push((now) => times.push(now));
  batch.push(() => {
    if (failing) throw new Error('disk full');
  });
  await assert.rejects(() => batch.commit(100), /disk full/);
  failing = false;
  await batch.commit(250);
  assert.deepEqual(times, [100, 250], 'stamped 250 by the commit that stored it, not 100 by the one that rolled back');
  db.close();
});

test('a quiet write does not ask for a commit, but rides the next one in order, also after a failed one', async () => {
  const db = new BetterSqlite3(':memory:');
  const batch = closureBatch(db);
  const ran: string[] = [];
  let failing = true;
  batch.pushQuiet(() => ran.push('lease'));
  assert.deepEqual([batch.pending, batch.wanted], [true, false], 'queued, and no commit asked for');
  batch.push(() => {
    if (failing) throw new Error('disk full');
    ran.push('result');
  });
  assert.equal(batch.wanted, true);
  await assert.rejects(() => batch.commit(1), /disk full/);
  assert.equal(batch.wanted, true, 'a failed batch still asks for its commit');
  ran.length = 0;
  failing = false;
  await batch.commit(2);
  assert.deepEqual(ran, ['lease', 'result']);
  assert.deepEqual([batch.pending, batch.wanted], [false, false]);
  db.close();
});
