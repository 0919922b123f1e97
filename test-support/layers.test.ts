import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { backEdgesIn, checkLayers } from './layers.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

test('every import in the repository points down the layers', () => {
  const edges = checkLayers(ROOT);
  assert.deepEqual(
    edges.map((e) => `${e.file}:${e.line} → ${e.target}: ${e.why}`),
    [],
  );
});

test('a back edge is found and said: db importing server code, crawler importing the server config', () => {
  const db = backEdgesIn(
    'db/pages.ts',
    "import type { Database } from 'better-sqlite3';\nimport { foldIdentifiers } from '../server/search/identifiers.ts';\n",
  );
  assert.equal(db.length, 1);
  assert.equal(db[0].line, 2);
  assert.equal(db[0].target, 'server/search/identifiers.ts');
  assert.match(db[0].why, /db\/ is below server\//);
  const multiLine = backEdgesIn(
    'crawler/coordination/coordinator.ts',
    "import {\n  type Config,\n  loadConfig,\n} from '../../server/config.ts';\n",
  );
  assert.equal(multiLine.length, 1, 'a multi-line import is read whole');
  assert.equal(
    backEdgesIn('crawler/primary.ts', "const m = await import('../server/app.ts');").length,
    1,
    'dynamic imports too',
  );
});

test('the web app takes types only; tests may use test support, production code may not', () => {
  assert.equal(backEdgesIn('web/src/api.ts', "import type { Result } from '../../server/search/types.ts';").length, 0);
  const value = backEdgesIn('web/src/api.ts', "import { SNIPPET } from '../../server/search/snippet.ts';");
  assert.match(value[0]?.why ?? '', /import type/);
  assert.equal(
    backEdgesIn(
      'crawler/integration/politeness.test.ts',
      "import { startCrawler } from '../../test-support/crawler-harness.ts';",
    ).length,
    0,
  );
  assert.match(
    backEdgesIn('crawler/primary.ts', "import { waitFor } from '../test-support/wait-for.ts';")[0]?.why ?? '',
    /only a \*\.test\.ts/,
  );
  assert.equal(
    backEdgesIn('shared/config.ts', "import { x } from './other.ts';").length,
    0,
    'within a layer anything goes',
  );
});

test('crawlee, a devDependency for the side-by-side, may be imported from bench/ only', () => {
  const crawler = backEdgesIn(
    'crawler/fetch/fetcher.ts',
    "import { x } from 'undici';\nimport { CheerioCrawler } from '@crawlee/cheerio';\n",
  );
  assert.equal(crawler.length, 1);
  assert.equal(crawler[0].line, 2);
  assert.match(crawler[0].why, /only bench\/ may import it/);
  assert.equal(
    backEdgesIn('server/app.ts', `const c = await import(${"'crawlee'"});`).length,
    1,
    'dynamic imports too',
  );
  assert.equal(backEdgesIn('bench/crawl/crawlee-child.ts', "import { log } from '@crawlee/cheerio';").length, 0);
});

test("inside crawler/, a back edge between sub-folders is found and said: politeness importing the frontier's window", () => {
  const back = backEdgesIn(
    'crawler/politeness/host-book.ts',
    "import { x } from './heap.ts';\nimport type { FrontierWindow } from '../frontier/frontier-window.ts';\n",
  );
  assert.equal(back.length, 1, 'a type import is an edge too; its own folder is free');
  assert.equal(back[0].line, 2);
  assert.equal(back[0].target, 'crawler/frontier/frontier-window.ts');
  assert.match(back[0].why, /crawler\/politeness\/ may not import crawler\/frontier\/: it stands on common\//);
  const cases: [from: string, spec: string][] = [
    ['crawler/fetch/fetcher.ts', '../extract/sitemap.ts'],
    ['crawler/extract/sitemap.ts', '../fetch/fetch-limits.ts'],
    ['crawler/extract/page-processor.ts', '../coordination/page-outcome.ts'],
    ['crawler/frontier/admission.ts', '../coordination/result-judge.ts'],
    ['crawler/common/protocol.ts', '../politeness/robots.ts'],
    ['crawler/politeness/scheduler.ts', '../job-runner.ts'],
    ['crawler/frontier/seed-book.ts', '../coordination/write-batch.ts'],
    ['crawler/frontier/seed-lifecycle.ts', '../coordination/write-batch.ts'], // the exception the intents removed
    ['crawler/fetch/fetcher.ts', '../integration/chaos.test.ts'],
  ];
  for (const [from, spec] of cases) {
    assert.equal(backEdgesIn(from, `import { x } from '${spec}';`).length, 1, `${from} → ${spec}`);
  }
  assert.match(
    backEdgesIn('crawler/newfolder/a.ts', "import { x } from '../common/url.ts';")[0]?.why ?? '',
    /crawler\/newfolder\/ has no floor: add it to CRAWLER_FLOORS/,
  );
});

test('inside crawler/, edges down the floors pass, and the composing files and tests may import any folder', () => {
  const allowed: [from: string, spec: string][] = [
    ['crawler/frontier/frontier-window.ts', '../politeness/scheduler.ts'],
    ['crawler/coordination/coordinator.ts', '../frontier/link-intake.ts'],
    ['crawler/coordination/coordinator.ts', '../common/protocol.ts'],
    ['crawler/extract/page-processor.ts', '../politeness/robots.ts'],
    ['crawler/fetch/fetcher.ts', '../common/url.ts'],
    ['crawler/job-runner.ts', './extract/page-processor.ts'],
    ['crawler/worker.ts', './fetch/fetcher.ts'],
    ['crawler/integration/chaos.test.ts', '../coordination/coordinator.ts'],
    ['crawler/common/protocol.test.ts', '../job-runner.ts'],
  ];
  for (const [from, spec] of allowed) {
    assert.deepEqual(backEdgesIn(from, `import { x } from '${spec}';`), [], `${from} → ${spec}`);
  }
});
