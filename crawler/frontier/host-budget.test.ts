import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostBudget, hostLimitMessage } from './host-budget.ts';

test('a seed takes hosts up to its limit; a host it has already stays open to it', () => {
  const b = new HostBudget(3);
  b.record(1, 'https://a.example');
  b.add(1, 'https://b.example');
  b.add(1, 'https://b.example');
  assert.equal(b.count(1), 2);
  assert.equal(b.hasRoom(1, 'https://c.example'), true);
  b.add(1, 'https://c.example');
  assert.equal(b.hasRoom(1, 'https://d.example'), false, 'a fourth host is refused');
  assert.equal(b.hasRoom(1, 'https://b.example'), true, 'more URLs of a host it has are fine');
  assert.equal(b.hasRoom(2, 'https://d.example'), true, 'another seed has a budget of its own');
});

test('what a failed transaction added is forgotten; a committed one stays', () => {
  const b = new HostBudget(2);
  b.record(1, 'https://a.example');
  b.add(1, 'https://b.example');
  b.refuse(1, 'c.example', 5);
  b.rollback();
  assert.equal(b.count(1), 1);
  assert.deepEqual(b.refusals(1), { count: 0, example: null, at: null });
  b.add(1, 'https://b.example');
  b.refuse(1, 'c.example', 6);
  b.refuse(1, 'd.example', 7);
  b.commit();
  assert.equal(b.count(1), 2);
  assert.deepEqual(b.refusals(1), { count: 2, example: 'd.example', at: 7 });
});

test('the figures to write are those of the seeds that changed, whole; none after a commit', () => {
  const b = new HostBudget(2);
  b.record(1, 'https://a.example');
  b.add(2, 'https://x.example');
  b.refuse(3, 'y.example', 9);
  assert.deepEqual(
    b.changed().sort((x, y) => x.seedId - y.seedId),
    [
      { seedId: 1, hosts: 1, refused: { count: 0, example: null, at: null } },
      { seedId: 2, hosts: 1, refused: { count: 0, example: null, at: null } },
      { seedId: 3, hosts: 0, refused: { count: 1, example: 'y.example', at: 9 } },
    ],
  );
  b.rollback();
  assert.deepEqual(
    b.changed().map((f) => f.seedId),
    [1],
    'a seed recorded outside the transaction is still to be written',
  );
  b.commit();
  assert.deepEqual(b.changed(), []);
});

test('the stored state is loaded at start, and a removed seed is forgotten', () => {
  const b = new HostBudget(2);
  b.load(
    [
      { seedId: 1, origin: 'https://a.example' },
      { seedId: 1, origin: 'https://b.example' },
    ],
    [{ seedId: 1, count: 40, example: 'z.example', at: 3 }],
  );
  assert.equal(b.hasRoom(1, 'https://c.example'), false, 'the limit holds across a restart');
  assert.deepEqual(b.refusals(1), { count: 40, example: 'z.example', at: 3 });
  b.forgetSeed(1);
  assert.equal(b.count(1), 0);
  assert.equal(b.refusals(1).count, 0);
});

test('the host row says which seed reached its limit, the limit, its setting and a host left out', () => {
  assert.equal(
    hostLimitMessage(1000, 'https://example.org/', 'a1001.example.org'),
    'stopped following links to new hosts: the crawl of https://example.org/ has reached 1,000 hosts (the limit per seed, CRAWL_MAX_HOSTS_PER_SEED); not followed, e.g. a1001.example.org',
  );
});
