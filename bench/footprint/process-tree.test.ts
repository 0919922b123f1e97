import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roleOf } from './process-tree.ts';

test("roleOf names each process of npm start's tree, the build's esbuild (given the entries as arguments) included", () => {
  assert.equal(
    roleOf(
      '/w/node_modules/@esbuild/linux-x64/bin/esbuild server/main.ts crawler/primary.ts crawler/worker.ts --bundle',
    ),
    'esbuild',
  );
  assert.equal(roleOf('sh -c npm run build && exec node --max-semi-space-size=1 dist/server/main.js'), 'sh');
  assert.equal(roleOf('npm start'), 'npm');
  assert.equal(roleOf('node --max-semi-space-size=1 dist/server/main.js'), 'server');
  assert.equal(roleOf('/usr/bin/node --max-semi-space-size=1 /w/dist/crawler/primary.js {"port":3000}'), 'primary');
  assert.equal(roleOf('/usr/bin/node /w/dist/crawler/worker.js'), 'worker');
});
