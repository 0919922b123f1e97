import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileRobots, robotsRules } from './robots.ts';
import { RULES_PER_GROUP, readRecords } from './robots-records.ts';

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

test('a group of 10,000 rules is held in arrays of at most RULES_PER_GROUP, and reads as one group', () => {
  const lines = Array.from({ length: 10_000 }, (_, i) => `Disallow: /p${i}/*x$\n`).join('');
  const text = `User-agent: LanternBot\n${lines}Crawl-delay: 5\nAllow: /p9999/ok\n`;
  const { groups } = read(text);
  assert.ok(
    groups.every((g) => g.rules.length <= RULES_PER_GROUP),
    `rules per array: ${groups.map((g) => g.rules.length).join(', ')}`,
  );
  assert.deepEqual(new Set(groups.map((g) => g.agents.join(','))), new Set(['lanternbot']));
  assert.equal(
    groups.reduce((n, g) => n + g.rules.length, 0),
    10_001,
  );
  const url = 'https://example.org/robots.txt';
  const rules = robotsRules(url, compileRobots(url, text, 'LanternBot/1.0'));
  assert.equal(rules.isAllowed('https://example.org/p0/ax'), false, 'the first rule still holds');
  assert.equal(rules.isAllowed('https://example.org/p9998/x'), false, 'a rule past the first array still holds');
  assert.equal(rules.isAllowed('https://example.org/p9999/ok'), true, 'the last line still holds');
  assert.equal(rules.crawlDelayMs, 5000, "a Crawl-delay after the split is the group's");
});
