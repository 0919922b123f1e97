import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  afterSitemapSkip,
  afterVisit,
  nextInterval,
  revisitDecision,
  sitemapSaysChanged,
  type RevisitSettings,
  type RevisitState,
} from './revisit.ts';

const P = 7 * 86_400_000;
const S: RevisitSettings = { refreshMs: P, maxMs: 8 * P };

/** Refreshes 1..n, once a period after a first visit at 0 (each a little late); which ones ask for the page. */
function visits(n: number, changedAt: (k: number) => boolean): number[] {
  let st = afterVisit(undefined, { kind: 'fetched', hash: 'v0' }, 0, S);
  const asked: number[] = [];
  for (let k = 1; k <= n; k++) {
    const now = k * P + 60_000;
    if (revisitDecision(st, now, S) !== 'due') continue;
    asked.push(k);
    st = afterVisit(st, changedAt(k) ? { kind: 'fetched', hash: `v${k}` } : { kind: 'not-modified' }, now + 5_000, S);
  }
  return asked;
}

test('a page that never changes is asked for at the 1st, 3rd, 7th and then every 8th refresh (the ceiling)', () => {
  assert.deepEqual(
    visits(24, () => false),
    [1, 3, 7, 15, 23],
  );
});

test('a page that changes every time is asked for at every refresh', () => {
  assert.deepEqual(
    visits(6, () => true),
    [1, 2, 3, 4, 5, 6],
  );
});

test('a page that changed waits shorter: after a change at the 15th refresh its interval halves', () => {
  // Unchanged until it changes at 15: 8 periods become 4, so the next visit is at 19 (not 23).
  assert.deepEqual(
    visits(24, (k) => k === 15),
    [1, 3, 7, 15, 19],
  );
});

test('intervals double and halve between the refresh period and the ceiling', () => {
  assert.equal(nextInterval(P, false, S), 2 * P);
  assert.equal(nextInterval(8 * P, false, S), 8 * P, 'the ceiling');
  assert.equal(nextInterval(8 * P, true, S), 4 * P);
  assert.equal(nextInterval(P, true, S), P, 'never below the refresh period');
  const st = afterVisit(undefined, { kind: 'fetched', hash: 'x' }, 0, S);
  assert.equal(st.intervalMs, P, 'a first visit starts at the refresh period');
  const same = afterVisit(st, { kind: 'fetched', hash: 'x' }, P, S);
  assert.deepEqual(
    [same.intervalMs, same.unchangedCount, same.changedCount],
    [2 * P, 1, 0],
    'the same text is unchanged',
  );
  const other = afterVisit(same, { kind: 'fetched', hash: 'y' }, 3 * P, S);
  assert.deepEqual([other.intervalMs, other.unchangedCount, other.changedCount], [P, 1, 1], 'another text is a change');
});

test('a sitemap lastmod older than the last request skips a due page, as an unchanged visit, up to the ceiling since the request', () => {
  const st: RevisitState = {
    ...afterVisit(undefined, { kind: 'fetched', hash: 'x' }, 10 * P, S),
    sitemapLastmod: 5 * P,
  };
  assert.equal(revisitDecision(st, 11 * P, S), 'sitemap-unchanged');
  const skipped = afterSitemapSkip(st, 11 * P, S);
  assert.deepEqual([skipped.intervalMs, skipped.checkedAt, skipped.visitedAt], [2 * P, 11 * P, 10 * P]);
  assert.equal(revisitDecision(skipped, 12 * P, S), 'not-due', 'its interval says when to look again');
  const old = { ...skipped, intervalMs: 8 * P, checkedAt: 17 * P };
  assert.equal(
    revisitDecision(old, 25 * P, S),
    'due',
    'the ceiling since the last real request passed: asked for whatever the sitemap says',
  );
  assert.equal(
    revisitDecision({ ...st, sitemapLastmod: 10 * P + 1 }, 11 * P, S),
    'due',
    'a lastmod after the request does not vouch',
  );
  assert.equal(sitemapSaysChanged(st, 10 * P + 1), true);
  assert.equal(sitemapSaysChanged(st, 10 * P), false);
  assert.equal(sitemapSaysChanged(undefined, 10 * P), false, 'a page never fetched is a link like any other');
});

test('a page its sitemap keeps vouching for is asked for again at the first refresh past the ceiling since its request', () => {
  // Fetched at refresh 0; its <lastmod> is older. Skipped at 1 (interval 2), at 3 (interval 4), and at 7?
  // No: 7 periods after the request the ceiling (8) would pass before the interval's next look, at 15.
  let st: RevisitState = { ...afterVisit(undefined, { kind: 'fetched', hash: 'v' }, 0, S), sitemapLastmod: -P };
  const decisions: string[] = [];
  for (let k = 1; k <= 10; k++) {
    const now = k * P + 60_000;
    const d = revisitDecision(st, now, S);
    if (d === 'not-due') continue;
    decisions.push(`${k}: ${d}`);
    if (d === 'due') break;
    st = afterSitemapSkip(st, now, S);
  }
  assert.deepEqual(decisions, ['1: sitemap-unchanged', '3: sitemap-unchanged', '7: sitemap-unchanged', '8: due']);
});

test('a page never judged is due', () => {
  assert.equal(revisitDecision(undefined, 0, S), 'due');
});

test('intervals are counted in refreshes: refreshes that come late (here 20 % of a period) never bring a visit early', () => {
  let st = afterVisit(undefined, { kind: 'fetched', hash: 'v' }, 0, S);
  const asked: number[] = [];
  const cycle = 1.2 * P;
  for (let k = 1; k <= 16; k++) {
    const now = k * cycle;
    if (revisitDecision(st, now, S, cycle) !== 'due') continue;
    asked.push(k);
    st = afterVisit(st, { kind: 'not-modified' }, now + 0.3 * P, S); // fetched a while after the seed's page
  }
  assert.deepEqual(asked, [1, 3, 7, 15]);
});
