/**
 * `npm run test:files`: every unit and integration test file (`*.test.ts` under the code's folders) but those
 * of the late lane (LATE_FILES: `npm run test:late`, after the browser tests), run by `node --test`
 * TEST_CONCURRENCY files at a time: the files of SHARED_PROCESS_FILES together in one process, every other file
 * in a process of its own. `--late` (`npm run test:late`) runs LATE_FILES instead, two at a time. `node --test`
 * starts its files in name order, whatever order they are given in. Other arguments are passed to
 * `node --test` first; `--list` prints the files each way instead of running them.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../shared/project-root.ts';
import { SHARED_PROCESS_FILES } from './shared-process-files.ts';

/** The folders whose `*.test.ts` files `npm run test:files` runs. */
export const TEST_FOLDERS = ['shared', 'db', 'crawler', 'server', 'web/src', 'test-support', 'bench'] as const;

/**
 * The files `npm run test:late` runs after the browser tests, in their lane, instead of here: the crawler's
 * chaos tests and the multi-process PostgreSQL suites, long (30-130 s each) and mostly waiting on leases and
 * sites' delays, which the browser lane has time for once its own tests end.
 */
export const LATE_FILES = [
  'crawler/integration/crawl-nodes-chaos.test.ts',
  'crawler/integration/crawl-nodes-handover.test.ts',
  'crawler/integration/crawl-nodes.test.ts',
  'crawler/integration/chaos.test.ts',
  'server/search-copy/copy-kill.test.ts',
  'server/search-copy/two-servers.test.ts',
] as const;

/**
 * How many files `npm run test:files` runs at a time. Alone, two at a time, its files took 553 s of wall time
 * for 478 s of CPU (2026-12-07, load 4-6): most of their time is waiting on sites' delays, timeouts and leases.
 * Three at a time ended sooner beside the browser tests (876 s against 1,026 s, at load 17 against 12), but
 * there fixed bounds on waits ran out (the disk budget's, the sitemaps', a full disk's 30 s), so it stays two.
 */
export const TEST_CONCURRENCY = 2;

/** Every `*.test.ts` under `folders` of `root` (paths relative to it, with '/'), sorted. */
export function findTestFiles(root: string, folders: readonly string[] = TEST_FOLDERS): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(rel);
      } else if (entry.name.endsWith('.test.ts')) found.push(rel);
    }
  };
  for (const folder of folders) walk(folder);
  return found.sort();
}

/** The files of `all` split: those run in the shared process, and those run one process each (late ones left out). */
export function planTestFiles(
  all: readonly string[],
  shared: readonly string[] = SHARED_PROCESS_FILES,
  late: readonly string[] = LATE_FILES,
): { shared: string[]; own: string[] } {
  const known = new Set(all);
  const missing = [...shared, ...late].filter((f) => !known.has(f));
  if (missing.length > 0) {
    throw new Error(
      `test-files: listed test files that do not exist: ${missing.join(', ')}; remove them from test-support/shared-process-files.ts or LATE_FILES`,
    );
  }
  const apart = new Set([...shared, ...late]);
  return { shared: [...shared], own: all.filter((f) => !apart.has(f)) };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === path.resolve(import.meta.filename);
if (isMain) {
  const late = process.argv.includes('--late');
  const args = process.argv.slice(2).filter((a) => a !== '--late' && a !== '--list');
  const plan = planTestFiles(findTestFiles(PROJECT_ROOT));
  if (process.argv.includes('--list')) {
    const lines = [
      ...plan.shared.map((f) => `shared ${f}`),
      ...plan.own.map((f) => `own ${f}`),
      ...LATE_FILES.map((f) => `late ${f}`),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } else {
    const files = late ? [...LATE_FILES] : ['test-support/shared-process-entry.ts', ...plan.own];
    const concurrency = late ? 2 : TEST_CONCURRENCY;
    const cli = ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...args, ...files];
    const child = spawn(process.execPath, cli, {
      cwd: PROJECT_ROOT,
      stdio: 'inherit',
    });
    child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
  }
}
