import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledRules, ROBOTS_COST } from './robots-matcher.ts';
import { compileRules, finish, type RobotsRule } from './robots-compile.ts';

/** The matcher of `rules`, compiled as a worker does and adopted (after a JSON round trip, as over IPC) as the primary does. */
const compiled = (rules: RobotsRule[]) => new CompiledRules(JSON.parse(JSON.stringify(finish(compileRules(rules)))));

const disallow = (pattern: string): RobotsRule => ({ allow: false, pattern });
const allow = (pattern: string): RobotsRule => ({ allow: true, pattern });
/** The verdict of `rules` for `path`, with the default budget. */
const verdict = (rules: RobotsRule[], path: string) => compiled(rules).check(path).kind;

describe('compiled rules: patterns', () => {
  test('runs of * are one *, a trailing * adds nothing, *$ at the end is no $', () => {
    const rules = compiled([disallow('/a***b'), disallow('/c*'), disallow('/c**'), disallow('/d*$')]);
    assert.equal(rules.size, 3, '/c* and /c** are one rule');
    assert.equal(rules.check('/a/xb').kind, 'disallowed');
    assert.equal(rules.check('/ab').kind, 'disallowed');
    assert.equal(rules.check('/a/x').kind, 'allowed');
    assert.equal(rules.check('/c').kind, 'disallowed');
    assert.equal(rules.check('/dx/y').kind, 'disallowed');
  });

  test('a final $ ends the path; a $ elsewhere is a character', () => {
    assert.equal(verdict([disallow('/*.pdf$')], '/x/a.pdf'), 'disallowed');
    assert.equal(verdict([disallow('/*.pdf$')], '/x/a.pdf?download'), 'allowed');
    assert.equal(verdict([disallow('/a$')], '/a'), 'disallowed');
    assert.equal(verdict([disallow('/a$')], '/ab'), 'allowed');
    assert.equal(verdict([disallow('/a$b')], '/a$b/c'), 'disallowed');
    assert.equal(verdict([disallow('/a$$')], '/a$'), 'disallowed');
    assert.equal(verdict([disallow('/a$$')], '/a$x'), 'allowed');
    assert.equal(verdict([disallow('$')], '/'), 'allowed', 'a lone $ matches only the empty path');
  });

  test('the last segment of a $ pattern must end the path, after the earlier ones', () => {
    assert.equal(verdict([disallow('/*ab*ab$')], '/ab'), 'allowed');
    assert.equal(verdict([disallow('/*ab*ab$')], '/abab'), 'disallowed');
    assert.equal(verdict([disallow('/*ab*b$')], '/ab'), 'allowed', 'the segments may not overlap');
    assert.equal(verdict([disallow('/*aab')], '/aaab'), 'disallowed', 'a search that restarts inside a partial match');
    assert.equal(verdict([disallow('/*abac*d')], '/ababacd'), 'disallowed');
    assert.equal(verdict([disallow('/*abab*c')], '/abacababc'), 'disallowed');
  });

  test('rules whose prefix the path does not start with never match', () => {
    const rules = [disallow('/ab*'), disallow('/b'), disallow('/abc$'), allow('/')];
    assert.equal(verdict(rules, '/a'), 'allowed');
    assert.equal(verdict(rules, '/ab'), 'disallowed');
    assert.equal(verdict(rules, '/abcd'), 'disallowed');
    assert.equal(verdict(rules, '/ba'), 'disallowed');
    assert.equal(verdict(rules, '/c'), 'allowed');
  });

  test('prefixes nested in each other all apply, and a sibling sorted between them does not', () => {
    const rules = [
      disallow('/a*1'),
      disallow('/a/b*2'),
      disallow('/a/b/c*3'),
      disallow('/a/bz*4'),
      disallow('/a/b.*5'),
    ];
    assert.equal(verdict(rules, '/a/b/c/1'), 'disallowed');
    assert.equal(verdict(rules, '/a/b/c/2'), 'disallowed');
    assert.equal(verdict(rules, '/a/b/c/3'), 'disallowed');
    assert.equal(verdict(rules, '/a/b/c/4'), 'allowed');
    assert.equal(verdict(rules, '/a/b/c/5'), 'allowed');
    assert.equal(verdict(rules, '/a/b/c/6'), 'allowed');
  });
});

describe('compiled rules: precedence', () => {
  test('the longest pattern as written wins, * included', () => {
    assert.equal(verdict([disallow('/a****'), allow('/a/b')], '/a/b'), 'disallowed', '6 characters beat 4');
    assert.equal(verdict([disallow('/a*'), allow('/a/b')], '/a/b'), 'allowed');
    assert.equal(verdict([disallow(`/a${'*'.repeat(1000)}`), allow('/a/b/c/d')], '/a/b/c/d'), 'disallowed');
  });

  test('allow wins a tie', () => {
    assert.equal(verdict([disallow('/a*c'), allow('/ab*')], '/abc'), 'allowed');
    assert.equal(verdict([allow('/ab*'), disallow('/a*c')], '/abc'), 'allowed');
  });

  test('rules that become one keep the highest precedence among them', () => {
    assert.equal(verdict([allow('/x**'), disallow('/x*'), disallow('/x')], '/x/y'), 'allowed');
    assert.equal(verdict([allow('/x*'), disallow('/x**')], '/x/y'), 'disallowed');
    assert.equal(compiled([allow('/x**'), disallow('/x*'), disallow('/x')]).size, 1);
  });

  test('no matching rule allows; a wildcard rule ranking below the best match is not tried', () => {
    assert.equal(verdict([], '/a'), 'allowed');
    const rules = compiled([disallow('/a/b/c/d/e'), allow('/*e')]);
    assert.equal(rules.check('/a/b/c/d/e').kind, 'disallowed');
  });
});

describe('compiled rules: cost', () => {
  const longPath = `/${'a'.repeat(2047)}`;

  test('the worst single rules cost a few steps per character of the path', () => {
    const worst: [string, RobotsRule][] = [
      ['499,000 stars', disallow(`/a${'*'.repeat(499_000)}`)],
      ['a 500 KiB pattern of a* pairs', disallow(`/${'a*'.repeat(255_000)}b`)],
      ['a segment of 1,001 characters', disallow(`/*${'a'.repeat(500)}b${'a'.repeat(500)}`)],
      ['short segments that nearly match', disallow(`/${'*aaaaaab'.repeat(60_000)}`)],
    ];
    for (const [name, rule] of worst) {
      const result = compiled([rule]).check(longPath);
      assert.notEqual(result.kind, 'over-budget', name);
      assert.ok(result.steps <= 4 * longPath.length + 100, `${name}: ${result.steps} steps`);
    }
  });

  test('thousands of wildcard rules under one prefix stop at the budget', () => {
    const rules = compiled(Array.from({ length: 40_000 }, (_, i) => disallow(`/*x${i}`)));
    for (const path of [`/${'b'.repeat(40)}`, longPath]) {
      const result = rules.check(path);
      assert.equal(result.kind, 'over-budget', path.slice(0, 10));
      assert.ok(result.steps > ROBOTS_COST.checkSteps, 'past the budget');
      assert.ok(
        result.steps <= ROBOTS_COST.checkSteps + 3 * path.length + 100,
        `stopped soon after it: ${result.steps}`,
      );
    }
  });

  test('a smaller budget stops sooner; the same check within it gives the answer', () => {
    const rules = compiled([disallow('/*b'), ...Array.from({ length: 50 }, (_, i) => disallow(`/*c${i}zz`))]);
    rules.check(longPath); // the first search for each segment also makes its table
    const full = rules.check(longPath);
    assert.equal(full.kind, 'allowed');
    assert.equal(rules.check(longPath, full.steps - 1).kind, 'over-budget');
    assert.deepEqual(rules.check(longPath, full.steps), full);
  });

  test('a path shorter than every rule costs two steps a rule', () => {
    const rules = compiled(Array.from({ length: 40_000 }, (_, i) => disallow(`/*x${i}`)));
    const result = rules.check('/b');
    assert.equal(result.kind, 'allowed');
    assert.ok(result.steps <= 2 * 40_000 + 100, `${result.steps} steps`);
  });

  test('36,000 copies of one rule are one rule', () => {
    const rules = compiled(Array.from({ length: 36_000 }, () => disallow('/a*')));
    assert.equal(rules.size, 1);
    const result = rules.check(longPath);
    assert.equal(result.kind, 'disallowed');
    assert.ok(result.steps < 200, `${result.steps} steps`);
  });
});
