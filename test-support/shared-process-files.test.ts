/**
 * The split `npm run test:files` runs by (test-support/test-files.ts): every test file runs exactly once, in
 * the shared process or in its own, the late lane's files in neither; and a file in the shared process
 * has nothing that would reach into the other files' tests there (module-level hooks) or that the shared
 * process is not for (processes, servers, threads, PostgreSQL).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PROJECT_ROOT, projectPath } from '../shared/project-root.ts';
import { SHARED_PROCESS_FILES } from './shared-process-files.ts';
import { findTestFiles, LATE_FILES, planTestFiles } from './test-files.ts';

/** What a file of the shared process must not have: a module-level hook, or a process, thread, server or cluster. */
const NOT_SHARED =
  /^(before|after|beforeEach|afterEach)\(|node:child_process|node:cluster|node:worker_threads|test-support\/(postgres|crawler-harness|app-process|crawl-nodes|engine-crawler)|startTestPostgres|\.listen\(|createServer\(/m;

test('every test file runs once: in the shared process or its own, the late lane’s in neither', () => {
  const all = findTestFiles(PROJECT_ROOT);
  const plan = planTestFiles(all);
  const runs = [...plan.shared, ...plan.own, ...LATE_FILES].sort();
  assert.deepEqual(runs, all);
  assert.equal(new Set(runs).size, runs.length, 'no file twice');
  assert.ok(plan.shared.length > 100, 'the shared process has its files');
  assert.ok(
    plan.own.includes('crawler/integration/politeness.test.ts'),
    'the crawler suites run in their own processes',
  );
});

test('a listed file that does not exist is an error naming it, not a file silently left out', () => {
  assert.throws(
    () => planTestFiles(['a.test.ts'], ['a.test.ts', 'gone.test.ts'], []),
    /test-files: listed test files that do not exist: gone\.test\.ts/,
  );
});

test('no file of the shared process has a module-level hook or starts a process, thread, server or PostgreSQL', () => {
  const offending = SHARED_PROCESS_FILES.filter((f) => NOT_SHARED.test(readFileSync(projectPath(f), 'utf8')));
  assert.deepEqual(offending, []);
  assert.ok(
    NOT_SHARED.test("import x from 'node:child_process';\nbefore(() => {});"),
    'the check sees what it looks for',
  );
});
