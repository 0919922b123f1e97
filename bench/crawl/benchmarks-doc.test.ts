import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CRAWL_MARKERS, replaceSection, writeSection } from './benchmarks-doc.ts';

const M = CRAWL_MARKERS;

test('replaceSection appends a marked section when the markers are absent, keeping what is there', () => {
  const doc = '# Benchmarks\n\n<!-- search:start -->\n## Search\nfast\n<!-- search:end -->\n';
  const out = replaceSection(doc, M, '## Crawl\nfigures');
  assert.ok(out.startsWith(doc.trimEnd()));
  assert.ok(out.endsWith(`${M.start}\n## Crawl\nfigures\n${M.end}\n`));
});

test('replaceSection replaces only the text between its own markers', () => {
  const doc = `# B\n\nbefore\n${M.start}\nold figures\n${M.end}\nafter\n<!-- search:start -->\nS\n<!-- search:end -->\n`;
  const out = replaceSection(doc, M, 'new figures');
  assert.equal(
    out,
    `# B\n\nbefore\n${M.start}\nnew figures\n${M.end}\nafter\n<!-- search:start -->\nS\n<!-- search:end -->\n`,
  );
  assert.equal(replaceSection(out, M, 'new figures'), out, 'running twice changes nothing');
});

test('replaceSection refuses a file with only one marker or markers out of order', () => {
  assert.throws(() => replaceSection(`x\n${M.start}\ny\n`, M, 'z'), /benchmarks-doc:/);
  assert.throws(() => replaceSection(`${M.end}\n${M.start}\n`, M, 'z'), /benchmarks-doc:/);
});

test('writeSection creates the file with a heading when missing, then replaces its section in place', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-bench-doc-'));
  try {
    const file = path.join(dir, 'docs', 'benchmarks.md');
    writeSection(file, M, 'first');
    const created = readFileSync(file, 'utf8');
    assert.ok(created.startsWith('# Benchmarks'));
    assert.ok(created.includes(`${M.start}\nfirst\n${M.end}`));
    writeFileSync(file, `${created}\n<!-- search:start -->\nsearch figures\n<!-- search:end -->\n`);
    writeSection(file, M, 'second');
    const updated = readFileSync(file, 'utf8');
    assert.ok(updated.includes(`${M.start}\nsecond\n${M.end}`));
    assert.ok(!updated.includes('first'));
    assert.ok(updated.includes('<!-- search:start -->\nsearch figures\n<!-- search:end -->'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
