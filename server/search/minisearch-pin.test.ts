/**
 * MiniSearch is pinned to one exact version because the title index leans on its internals, which a
 * minor release may change without notice: term-search.ts reads and writes its protected fields,
 * packed-postings.ts stands in for the Maps of its index, term-state-builder.ts reproduces what its
 * addAll stores. The differential tests (DIFFERENTIAL below) prove them against the installed copy,
 * but only once it is installed: this test says, before anything else does, that the installed copy
 * is not the version they were run against, and what to review and re-run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every file that depends on MiniSearch's internals, and how. */
const MINISEARCH_INTERNALS: ReadonlyArray<readonly [file: string, how: string]> = [
  [
    'server/search/term-search.ts',
    "reads and writes its protected fields (_index, _documentIds, _idToShortId, _fieldLength, _avgFieldLength, _documentCount, _nextId, _dirtCount) and walks its term tree (atPrefix, fuzzyGet, and its _tree directly in its iterator's order)",
  ],
  [
    'server/search/packed-postings.ts',
    'stands in for the Map it keeps per term and field, offering only the calls it makes (and in the order it makes them)',
  ],
  [
    'server/search/term-state-builder.ts',
    'reproduces what addAll stores: short ids, field lengths, the running average field length, posting order',
  ],
  ['server/search/title-snapshot.ts', 'stores that state as it is laid out inside MiniSearch'],
  ['server/search/title-doc.ts', 'uses its default tokenizer; puts its version into the snapshot fingerprint'],
  [
    'server/search/title-index-load.ts',
    'builds and restores the index through term-state-builder.ts and term-search.ts instead of addAll/loadJSON',
  ],
  ['server/search/title-index.ts', 'adds and discards over packed postings'],
  [
    'server/search/title-search.ts',
    "searches over packed postings with MiniSearch's query options (prefix, fuzzy, fields) and reads its results' match map",
  ],
];

/** The tests that compare those files with MiniSearch itself. */
const DIFFERENTIAL = [
  'server/search/term-state-builder.test.ts',
  'server/search/packed-postings.test.ts',
  'server/search/title-snapshot.test.ts',
  'server/search/title-index.test.ts',
  'server/search/short-prefix-table.test.ts',
];

/** The version of minisearch that Node resolves from here (read from its package.json, at run time). */
function installedVersion(): string {
  let dir = path.dirname(createRequire(import.meta.url).resolve('minisearch'));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'minisearch' && typeof pkg.version === 'string') return pkg.version;
    }
    const up = path.dirname(dir);
    assert.notEqual(up, dir, 'minisearch-pin: no package.json of minisearch above its entry point');
    dir = up;
  }
}

function pinnedVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  return pkg.dependencies.minisearch;
}

/** The message of a version mismatch: what to review, what to re-run, how to move the pin. */
function reviewMessage(installed: string, pinned: string): string {
  return [
    `minisearch-pin: minisearch ${installed} is installed, but Lantern is pinned to ${pinned} (package.json), the version its differential tests were run against.`,
    "These files depend on MiniSearch's internals; review each against the new release:",
    ...MINISEARCH_INTERNALS.map(([file, how]) => `  - ${file}: ${how}`),
    `Then re-run: node --import tsx --test --test-concurrency=1 ${DIFFERENTIAL.join(' ')} server/search/search-service.test.ts`,
    `and, once they pass, move the pin: npm install --save-exact minisearch@${installed} (a snapshot of the old version is then rebuilt at start, title-doc.ts).`,
    `Otherwise, go back: npm install --save-exact minisearch@${pinned}.`,
  ].join('\n');
}

test('package.json pins minisearch to one exact version', () => {
  const pinned = pinnedVersion();
  assert.match(
    pinned,
    /^\d+\.\d+\.\d+$/,
    `minisearch-pin: package.json asks for minisearch "${pinned}", a range; pin the version the differential tests passed with (npm install --save-exact minisearch@<version>)`,
  );
  const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
  };
  assert.equal(
    lock.packages[''].dependencies?.minisearch,
    pinned,
    'minisearch-pin: package-lock.json disagrees with package.json; run npm install',
  );
  assert.equal(
    lock.packages['node_modules/minisearch']?.version,
    pinned,
    'minisearch-pin: package-lock.json locks another minisearch; run npm install',
  );
});

test('the installed minisearch is the pinned version (else: the files to review and the tests to re-run)', () => {
  const installed = installedVersion();
  const pinned = pinnedVersion();
  assert.ok(installed === pinned, reviewMessage(installed, pinned));
});

test('the list names real files, among them every file that imports minisearch', () => {
  const listed = new Set(MINISEARCH_INTERNALS.map(([file]) => file));
  for (const file of [...listed, ...DIFFERENTIAL])
    assert.ok(existsSync(path.join(ROOT, file)), `minisearch-pin: ${file} is listed but does not exist`);
  const importers: string[] = [];
  const walk = (rel: string): void => {
    for (const entry of readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = path.posix.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist' && !entry.name.startsWith('.')) walk(child);
      } else if (
        /\.tsx?$/.test(entry.name) &&
        !entry.name.endsWith('.test.ts') &&
        /from\s+['"]minisearch(?:\/[^'"]*)?['"]/.test(readFileSync(path.join(ROOT, child), 'utf8'))
      ) {
        importers.push(child);
      }
    }
  };
  for (const dir of ['shared', 'db', 'crawler', 'server', 'web', 'bench'])
    if (existsSync(path.join(ROOT, dir))) walk(dir);
  assert.ok(importers.length > 0, 'minisearch-pin: found no file importing minisearch; is the walk broken?');
  const unlisted = importers.filter((f) => !listed.has(f));
  assert.deepEqual(
    unlisted,
    [],
    `minisearch-pin: ${unlisted.join(', ')} import minisearch but are not in MINISEARCH_INTERNALS (server/search/minisearch-pin.test.ts): add them, saying how they depend on it`,
  );
});
