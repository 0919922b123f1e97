/**
 * The coordinator on a real SQLite file, driven by hand with an injected clock: what it does with robots.txt
 * rules that cost too much to check (the host is broken until a later file gives usable rules) and with
 * a host whose many checks would hold the primary's loop (its turn ends, other hosts go first).
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from 'better-sqlite3';
import { seedQueries } from '../../db/seeds.ts';
import { loadConfig } from '../../shared/config.ts';
import type { Coordinator } from './coordinator.ts';
import { BACKOFF } from '../politeness/backoff.ts';
import { compileRobots, parseRobots, ROBOTS_COST } from '../politeness/robots.ts';
import { fetchResult, parsedPage, startCoordinator } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';

const DELAY_MS = 100;
const SETTINGS = { CRAWL_DELAY_MS: String(DELAY_MS) };
const COSTLY = 'https://costly.example';
const CALM = 'https://calm.example';
/** The seed's path: long enough that every rule of UNUSABLE is tried on it. */
const HOME = '/welcome-to-our-site/and-its-many-pages/index.html';
/** 25,000 distinct wildcard rules under `/`: no check of any path fits the budget. */
const UNUSABLE = `User-agent: *\n${Array.from({ length: 25_000 }, (_, i) => `Disallow: /*x${i}`).join('\n')}\n`;

describe('coordinator: robots.txt rules that cost too much', () => {
  let tmp: TempDatabase;
  let db: Database;
  let coordinator: Coordinator;
  const config = () => loadConfig({ DATA_DIR: tmp.dir, ...SETTINGS });
  /** A Coordinator started (or restarted) at `now` on this test's database. */
  const start = async (runId: string, now: number) => await startCoordinator(tmp, SETTINGS, runId, now);

  beforeEach(async () => {
    tmp = tempDatabase('robots-cost');
    db = tmp.db;
    seedQueries(db).upsertSeed({ url: `${COSTLY}${HOME}`, origin: COSTLY, depth: 2, scope: 'host' }, 1000);
    coordinator = await start('test-run', 10_000);
  });
  afterEach(() => tmp.cleanup());

  const row = (now: number) => coordinator.snapshot(now, 1).domains.find((d) => d.origin === COSTLY)!;
  const frontierState = (url: string) =>
    (db.prepare('SELECT state FROM frontier WHERE url = ?').get(url) as { state: string }).state;

  /** Answers the robots.txt job due at `t` with `body`, 10 ms later; returns when that answer ended. */
  function answerRobots(c: Coordinator, t: number, body: string): number {
    const job = c.dispatch(t)!;
    assert.equal(job?.url, `${COSTLY}/robots.txt`, `robots.txt is asked at ${t}`);
    c.onResult(fetchResult(job.jobId, { status: 200, contentType: 'text/plain', robotsBody: body }), t + 10);
    return t + 10;
  }

  test('unusable rules: the host is backed off and says why, its page waits, and robots.txt is asked again after the backoff', async () => {
    let t = answerRobots(coordinator, 10_000, UNUSABLE) + DELAY_MS;
    assert.equal(coordinator.dispatch(t), undefined, 'the page is not handed out');
    const broken = row(t);
    assert.equal(broken.robots.status, 'unusable');
    assert.equal(broken.state, 'robots-unusable');
    assert.equal(broken.backoffUntil, new Date(t + BACKOFF.firstMs).toISOString());
    assert.match(
      broken.stateText,
      /^robots\.txt unusable \(robots: its 25,000 rules for this crawler take more than [\d,]+ steps to check one URL \(https:\/\/costly\.example\/welcome-to-our-site\/and-its-many-pages\/index\.html\); they are too costly to use\); nothing fetched until a later robots\.txt gives usable rules, asked again at \d\d:\d\d:\d\d UTC$/,
    );
    await coordinator.flush(t);
    assert.equal(frontierState(`${COSTLY}${HOME}`), 'queued', 'the seed page waits, not skipped');

    // A restart keeps it so: robots.txt is asked again only once the backoff is over.
    coordinator = await start('second-run', t + 1);
    assert.equal(row(t + 1).robots.status, 'unusable');
    assert.equal(coordinator.dispatch(t + BACKOFF.firstMs - 1), undefined, 'nothing before the backoff ends');
    // The same file again: unusable again, and the wait doubles.
    t = answerRobots(coordinator, t + BACKOFF.firstMs, UNUSABLE) + DELAY_MS;
    assert.equal(coordinator.dispatch(t), undefined);
    assert.equal(row(t).backoffUntil, new Date(t + 2 * BACKOFF.firstMs).toISOString(), 'twice the first backoff');
    // Usable rules at last: the page is fetched.
    t = answerRobots(coordinator, t + 2 * BACKOFF.firstMs, 'User-agent: *\nDisallow: /private\n') + DELAY_MS;
    assert.equal(coordinator.dispatch(t)?.url, `${COSTLY}${HOME}`);
    assert.equal(row(t).robots.status, 'ok');
  });

  test("a host's checks share its turn: past ROBOTS_COST.turnSteps it waits a delay, and another host goes first", async () => {
    seedQueries(db).upsertSeed({ url: `${CALM}/`, origin: CALM, depth: 0, scope: 'host' }, 1000);
    await coordinator.syncSeeds(10_000);
    // Rules that cost thousands of steps to check a long path and disallow it; the home page is allowed.
    const costly = `User-agent: *\nAllow: ${HOME}$\nDisallow: /\n${Array.from({ length: 180 }, (_, i) => `Disallow: /*zq${i}`).join('\n')}\n`;
    answerRobots(coordinator, 10_000, costly);
    const calmRobots = coordinator.dispatch(10_000)!;
    assert.equal(calmRobots.url, `${CALM}/robots.txt`);
    const home = coordinator.dispatch(10_010 + DELAY_MS)!;
    assert.equal(home.url, `${COSTLY}${HOME}`);
    const links = Array.from({ length: 200 }, (_, i) => `${COSTLY}/p${i}/${'y'.repeat(1900)}`);
    const alone = parseRobots(`${COSTLY}/robots.txt`, costly, config().userAgent);
    alone.check(links[1]); // the first check also makes the segments' tables
    const perCheck = alone.check(links[0]);
    assert.equal(perCheck.kind, 'disallowed');
    coordinator.onResult(fetchResult(home.jobId, { status: 200, page: parsedPage(home.url, links) }), 10_120);
    await coordinator.flush(10_120);
    // The other host's robots.txt ends later: at 10,300 both are due, the costly one for longer.
    coordinator.onResult(fetchResult(calmRobots.jobId, { status: 404 }), 10_200);
    const t = 10_200 + DELAY_MS;
    const skipped = async () => {
      await coordinator.flush(t);
      return (
        db.prepare("SELECT COUNT(*) AS n FROM frontier WHERE origin = ? AND state = 'skipped'").get(COSTLY) as {
          n: number;
        }
      ).n;
    };

    // One call: the costly host (due longest) checks until its turn's steps are spent, then stops.
    assert.equal(coordinator.dispatch(t), undefined, 'its turn ended on checks');
    const firstTurn = await skipped();
    assert.ok(firstTurn > 0 && firstTurn < links.length, `${firstTurn} of ${links.length} checked in one turn`);
    const perTurn = ROBOTS_COST.turnSteps / perCheck.steps;
    assert.ok(
      firstTurn >= Math.floor(perTurn) - 1 && firstTurn <= Math.ceil(perTurn),
      `a turn holds turnSteps of checks: ${firstTurn}, ${perCheck.steps} steps each`,
    );
    // The next call, at the same moment, goes to the other host.
    assert.equal(coordinator.dispatch(t)?.url, `${CALM}/`);
    // The costly host's next turn comes a delay later, as if its checks had been a request.
    assert.equal(coordinator.dispatch(t + DELAY_MS - 1), undefined);
    assert.equal(await skipped(), firstTurn, 'no checks before its next turn');
    coordinator.dispatch(t + DELAY_MS);
    assert.ok((await skipped()) > firstTurn, 'its next turn goes on');
  });

  test('the rules a worker compiled are kept with the host, not the file, and a restart uses them without reading anything', async () => {
    const job = coordinator.dispatch(10_000)!;
    const robotsUrl = `${COSTLY}/robots.txt`;
    const compiled = compileRobots(robotsUrl, `User-agent: *\nDisallow: ${HOME}\nCrawl-delay: 1\n`, config().userAgent);
    coordinator.onResult(fetchResult(job.jobId, { status: 200, robotsRules: compiled }), 10_010);
    await coordinator.flush(10_010);
    const stored = () =>
      db.prepare('SELECT robots_body AS body, robots_rules AS rules FROM hosts WHERE origin = ?').get(COSTLY) as {
        body: string | null;
        rules: string | null;
      };
    assert.equal(stored().body, null, 'no file kept');
    assert.deepEqual(JSON.parse(stored().rules!), compiled);
    await coordinator.stopCleanly(20_000); // a clean stop: the restart trusts the stored clock (a crash would hold the host a delay)
    coordinator = await start('second-run', 20_000);
    assert.equal(
      coordinator.dispatch(20_000),
      undefined,
      'the seed is disallowed by the kept rules: nothing asked, not even robots.txt',
    );
    assert.equal(frontierState(`${COSTLY}${HOME}`), 'queued', 'judged at the flush after its check');
    await coordinator.flush(20_000);
    assert.equal(frontierState(`${COSTLY}${HOME}`), 'skipped');
    // Kept for another crawler name (CRAWL_USER_AGENT changed): robots.txt is asked again.
    db.prepare('UPDATE hosts SET robots_rules = ? WHERE origin = ?').run(
      stored().rules!.replace('"token":"lanternbot"', '"token":"otherbot"'),
      COSTLY,
    );
    await coordinator.stopCleanly(30_000);
    coordinator = await start('third-run', 30_000);
    assert.equal(coordinator.dispatch(30_000)?.url, robotsUrl);
  });
});
