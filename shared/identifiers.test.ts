/**
 * extractIdentifiers jumps from joiner to joiner instead of reading every word; it must find exactly
 * what reading every run of letters, digits, "_" and "-" finds, also around astral letters and marks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asIdentifier, extractIdentifiers, MAX_IDENTS_PER_PAGE } from './identifiers.ts';
import { seededRandom } from '../test-support/seeded-random.ts';

/** The plain definition: every run, kept when it holds a joiner and is an identifier. */
function byEveryRun(...texts: string[]): string {
  const seen = new Set<string>();
  for (const text of texts) {
    for (const [run] of text.matchAll(/[\p{L}\p{N}_-]+/gu)) {
      if (!run.includes('_') && !run.includes('-')) continue;
      const ident = asIdentifier(run);
      if (ident !== undefined) seen.add(ident);
      if (seen.size >= MAX_IDENTS_PER_PAGE) return [...seen].join(' ');
    }
  }
  return [...seen].join(' ');
}

const PIECES = [
  'a',
  'Z',
  '7',
  '_',
  '-',
  '--',
  ' ',
  '.',
  '=',
  'é',
  'e\u0301',
  'ß',
  '𝔘',
  '😀',
  '中',
  '١',
  '\u00a0',
  '__init__',
  'git-rebase',
  '\n',
  'x',
];

test('finds exactly the identifiers that reading every word finds (2,000 random texts)', () => {
  const random = seededRandom(9309); // replayable
  for (let n = 0; n < 2000; n++) {
    const parts: string[] = [];
    const length = 1 + Math.floor(random() * 40);
    for (let i = 0; i < length; i++) parts.push(PIECES[Math.floor(random() * PIECES.length)]);
    const text = parts.join('');
    assert.equal(extractIdentifiers(text, text.slice(3)), byEveryRun(text, text.slice(3)), JSON.stringify(text));
  }
});

test('examples: a joiner only at the edge makes no identifier; astral letters inside, case and diacritics folded', () => {
  assert.equal(
    extractIdentifiers('-lead trail- mid-dle 𝔘_x Café-Noir __init__ - _ a--b'),
    'mid-dle 𝔘_x cafe-noir __init__ a--b',
  );
  assert.equal(extractIdentifiers('no identifiers here at all'), '');
});
