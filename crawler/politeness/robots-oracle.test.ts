/**
 * robots-parser as the oracle: generated rules, files and paths, small enough for its matcher, must get
 * the same answers from ours (robots-matcher.ts, and parseRobots' group choice and Crawl-delay). The
 * inputs keep to what both read the same way (see robots.ts for where we differ on purpose: Sitemap and
 * unknown lines inside a group, groups without rules, percent-encoding). A failure prints the seed and
 * the input, so it can be replayed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import robotsParserExport from 'robots-parser';
import { CompiledRules } from './robots-matcher.ts';
import { compileRules, finish, type RobotsRule } from './robots-compile.ts';
import { parseRobots } from './robots.ts';
import { seededRandom } from '../../test-support/seeded-random.ts';

interface Oracle {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}
const robotsParser = robotsParserExport as unknown as (url: string, contents: string) => Oracle;

const ORIGIN = 'http://oracle.test';

/** A string of `min`..`max` characters drawn from `alphabet`. */
function text(random: () => number, alphabet: string, min: number, max: number): string {
  const n = min + Math.floor(random() * (max - min + 1));
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

/** A pattern: `/` or `*` first, then characters and wildcards; sometimes a final `$`. */
function pattern(random: () => number, alphabet: string): string {
  const body = (random() < 0.8 ? '/' : '*') + text(random, `${alphabet}**`, 0, 8);
  return random() < 0.25 ? `${body}$` : body;
}

/** A path as WHATWG URL gives it back (what both matchers are asked about). */
function path(random: () => number, alphabet: string): string {
  const url = new URL(`${ORIGIN}/${text(random, alphabet, 0, 14)}`);
  return url.pathname + url.search;
}

describe('robots-parser as the oracle', () => {
  for (const alphabet of ['ab/', 'ab/$?=', 'a']) {
    test(`matching: 4,000 generated rule sets over "${alphabet}" agree`, () => {
      for (let seed = 1; seed <= 4_000; seed++) {
        const random = seededRandom(seed);
        const rules: RobotsRule[] = Array.from({ length: 1 + Math.floor(random() * 6) }, () => ({
          allow: random() < 0.5,
          pattern: pattern(random, alphabet),
        }));
        const oracle = robotsParser(
          `${ORIGIN}/robots.txt`,
          `User-agent: *\n${rules.map((r) => `${r.allow ? 'Allow' : 'Disallow'}: ${r.pattern}`).join('\n')}\n`,
        );
        const ours = new CompiledRules(finish(compileRules(rules)));
        for (let k = 0; k < 8; k++) {
          const p = path(random, alphabet);
          const expected = oracle.isAllowed(ORIGIN + p, 'bot') ? 'allowed' : 'disallowed';
          assert.equal(ours.check(p).kind, expected, `seed ${seed}: ${JSON.stringify(rules)} for ${p}`);
        }
      }
    });
  }

  test('whole files: 2,000 generated files agree on every path and on Crawl-delay', () => {
    const agents = ['LanternBot', 'lanternbot', 'LANTERNBOT/2.0', 'OtherBot', '*'];
    for (let seed = 1; seed <= 2_000; seed++) {
      const random = seededRandom(seed);
      const lines: string[] = [];
      if (random() < 0.2) lines.push(`Disallow: ${pattern(random, 'ab/')}`); // before any group: ignored by both
      for (let g = Math.floor(random() * 4); g >= 0; g--) {
        for (let a = Math.floor(random() * 2); a >= 0; a--)
          lines.push(`User-agent: ${agents[Math.floor(random() * agents.length)]}`);
        if (random() < 0.3) lines.push(`Crawl-delay: ${Math.floor(random() * 10)}`);
        for (let r = Math.floor(random() * 4); r >= 0; r--)
          lines.push(`${random() < 0.5 ? 'Allow' : 'Disallow'}: ${pattern(random, 'ab/')}`);
        if (random() < 0.5) lines.push('');
      }
      const file = `${lines.join('\n')}\n`;
      const ours = parseRobots(`${ORIGIN}/robots.txt`, file, 'LanternBot/1.0');
      const oracle = robotsParser(`${ORIGIN}/robots.txt`, file);
      const delay = oracle.getCrawlDelay('LanternBot');
      assert.equal(
        ours.crawlDelayMs,
        delay === undefined ? undefined : delay * 1000,
        `seed ${seed}: Crawl-delay of\n${file}`,
      );
      for (let k = 0; k < 8; k++) {
        const url = ORIGIN + path(random, 'ab/');
        assert.equal(ours.isAllowed(url), oracle.isAllowed(url, 'LanternBot'), `seed ${seed}: ${url} under\n${file}`);
      }
    }
  });
});
