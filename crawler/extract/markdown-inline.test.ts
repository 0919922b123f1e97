import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { describe, it } from 'node:test';
import { MARKDOWN_SHAPES } from '../../test-support/hostile-shapes.ts';
import { markdownHeading, markdownLinkTargets, readableMarkdown, type StepCount } from './markdown-inline.ts';

// The regexes text-document.ts used before the scanners: the reference for what the scanners must give
// (run here on short lines only; on long hostile ones they take quadratic or cubic time).
const regexReadable = (line: string): string =>
  line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<(https?:\/\/[^>\s]+)>/g, '$1')
    .replace(/(\*\*|__|\*|_|`+|~~)(?=\S)([^*_`~\n]+?)\1/g, '$2');
const regexHeading = (line: string): { level: number; text: string } | null => {
  const m = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
  return m ? { level: m[1].length, text: m[2] } : null;
};
const regexLinks = (line: string): string[] =>
  [...line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|<(https?:\/\/[^>\s]+)>/g)].map((m) => m[1] ?? m[2]);

const PIECES = ['[', ']', '(', ')', '![', '](', '<', '>', '<http://', '<https://', '"', ' ', '\t', '\u2028', '#'];
const MORE = ['*', '**', '_', '__', '`', '``', '~', '~~', 'a', 'bc', 'x.y', '\u00a0', '𝐀'];

function randomLine(next: () => number, heading: boolean): string {
  const all = [...PIECES, ...MORE];
  const parts: string[] = [];
  if (heading) parts.push(' '.repeat(Math.floor(next() * 5)), '#'.repeat(1 + Math.floor(next() * 7)));
  const n = Math.floor(next() * 14);
  for (let i = 0; i < n; i++) parts.push(all[Math.floor(next() * all.length)]);
  return parts.join('');
}

describe('markdown-inline: the same answers as the regexes it replaces', () => {
  it('on 30,000 random lines of link, autolink, emphasis and heading syntax', () => {
    const next = seededRandom(26);
    for (let i = 0; i < 30_000; i++) {
      const line = randomLine(next, i % 3 === 0);
      assert.equal(readableMarkdown(line), regexReadable(line), `readable ${JSON.stringify(line)}`);
      assert.deepEqual(markdownLinkTargets(line), regexLinks(line), `links ${JSON.stringify(line)}`);
      assert.deepEqual(markdownHeading(line), regexHeading(line), `heading ${JSON.stringify(line)}`);
    }
  });

  it('on the everyday forms', () => {
    const line = 'See ![logo](/l.png) and [the *docs*](https://a.test/d "Docs") or <https://b.test/x>, `code` ~~old~~';
    assert.equal(readableMarkdown(line), 'See logo and the docs or https://b.test/x, code old');
    assert.deepEqual(markdownLinkTargets(line), ['/l.png', 'https://a.test/d', 'https://b.test/x']);
    assert.deepEqual(markdownHeading('  ## Title of it ##  '), { level: 2, text: 'Title of it' });
    assert.equal(markdownHeading('####### seven'), null);
    assert.equal(markdownHeading('    # indented code'), null);
  });
});

describe('markdown-inline: hostile lines cost steps linear in their length', () => {
  // Each shape at 64,000 characters: the regexes took seconds to minutes on most of them.
  const SIZE = 64_000;
  for (const shape of [
    ...MARKDOWN_SHAPES,
    { name: 'heading, spaces after the text', make: (n: number) => `# a${' '.repeat(n)}b` },
  ]) {
    it(shape.name, () => {
      const line = shape.make(SIZE);
      const count: StepCount = { steps: 0 };
      readableMarkdown(line, count);
      markdownLinkTargets(line, count);
      markdownHeading(line, count);
      assert.ok(
        count.steps <= 10 * line.length,
        `${count.steps} steps for ${line.length} characters (budget ${10 * line.length})`,
      );
    });
  }
});
