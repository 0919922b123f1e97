/**
 * robots.txt files built to cost the crawler as much as they can, each within the 500 KiB RFC 9309 says
 * a crawler must read, and the long paths to check against them. Shared by the real-cluster test
 * (crawler/integration/hostile-robots-cost.test.ts) and the benchmark (bench/robots/robots-bench.ts).
 */
import { parseRobots, ROBOTS_COST } from '../crawler/politeness/robots.ts';

/** Lines under `User-agent: *`, as one file. */
const file = (lines: string[]): string => `User-agent: *\n${lines.join('\n')}\n`;

/** How long a path the files are checked against: a URL of a loopback site stays within the 2,048-character limit. */
export const LONG_PATH = 2000;

/** `n` distinct paths of LONG_PATH characters starting with `head`, letters after it (`/a/aaaa…0`). */
export function longPaths(head: string, n: number, fill = 'a'): string[] {
  return Array.from({ length: n }, (_, i) => {
    const tail = String(i);
    return `${head}${fill.repeat(LONG_PATH - head.length - tail.length)}${tail}`;
  });
}

/**
 * Rules costing just under ROBOTS_COST.checkSteps to check a LONG_PATH path of `fill` letters: `/` (the
 * home page) allowed, everything else disallowed, and enough wildcard rules that never match to be
 * tried in full. Calibrated with the matcher's own step count, so it follows the budget.
 */
function nearBudget(): string {
  const head = ['Allow: /$', 'Disallow: /'];
  const wild = (n: number) => Array.from({ length: n }, (_, i) => `Disallow: /*zq${i}`);
  const path = longPaths('/p/', 1)[0];
  const steps = (n: number) =>
    parseRobots('http://x.test/robots.txt', file([...head, ...wild(n)]), 'LanternBot').check(`http://x.test${path}`)
      .steps;
  const perRule = (steps(200) - steps(100)) / 100;
  return file([...head, ...wild(Math.floor((0.9 * ROBOTS_COST.checkSteps - steps(0)) / perRule))]);
}

/** The costliest files we know how to build, by name; each fits the 500 KiB a crawler reads (the benchmark checks). */
export const COSTLY_ROBOTS: Record<string, { why: string; body: () => string }> = {
  stars: {
    why: '`Disallow: /a` followed by 499,000 `*` (robots-parser: one array pass per `*`)',
    body: () => file([`Disallow: /a${'*'.repeat(499_000)}`]),
  },
  repeated: {
    why: '36,000 lines of `Disallow: /a*`',
    body: () => file(Array.from({ length: 36_000 }, () => 'Disallow: /a*')),
  },
  distinct: {
    why: '25,000 distinct wildcard rules under `/` (`Disallow: /*x0` …): every path tries them all',
    body: () => file(Array.from({ length: 25_000 }, (_, i) => `Disallow: /*x${i}`)),
  },
  single: {
    why: 'one 500 KiB pattern: 1,900 `a`, each after 262 `*` (a path of 2,000 `a` matches it)',
    body: () => file([`Disallow: /${`${'*'.repeat(262)}a`.repeat(1_900)}`]),
  },
  nested: {
    why: '990 nested prefixes (`/*b`, `/a*b`, `/aa*b`, …): a path of `a` is under all of them',
    body: () => file(Array.from({ length: 990 }, (_, i) => `Disallow: /${'a'.repeat(i)}*b`)),
  },
  kmp: {
    why: '400 segments of 1,001 characters (`a`×500, one other letter, `a`×500): a naive search is quadratic',
    body: () =>
      file(
        Array.from(
          { length: 400 },
          (_, i) =>
            `Disallow: /*${'a'.repeat(500)}${String.fromCharCode(98 + (i % 24))}${'a'.repeat(500 - String(i).length)}${i}`,
        ),
      ),
  },
  'near-budget': {
    why: 'wildcard rules that never match, as many as fit just under the check budget for a 2,000-character path',
    body: nearBudget,
  },
};
