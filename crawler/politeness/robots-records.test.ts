import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readRecords } from './robots-records.ts';

/** Runs the generator to its end, as robots-compile.ts does between its pauses. */
function read(text: string) {
  const it = readRecords(text, 'https://example.org/robots.txt');
  for (let r = it.next(); ; r = it.next()) if (r.done) return r.value;
}

test('an agent listed again in one group is kept once: 100,000 repeats hold one entry, not a growing list', () => {
  const { groups } = read(`${'User-agent: a\n'.repeat(100_000)}User-agent: LanternBot\nDisallow: /\n`);
  assert.equal(groups.length, 1);
  assert.deepEqual(groups[0].agents, ['a', 'lanternbot']);
  assert.equal(groups[0].rules.length, 1);
});

test('the same agent in two groups stays in both', () => {
  const { groups } = read('User-agent: a\nDisallow: /x\n\nUser-agent: a\nUser-agent: a\nDisallow: /y\n');
  assert.deepEqual(
    groups.map((g) => g.agents),
    [['a'], ['a']],
  );
});
