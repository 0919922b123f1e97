import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { FIELDS, runSteps, TermSearch } from './term-search.ts';
import type { TermSearchState, TitleDoc } from './term-search.ts';
import { TermStateBuilder } from './term-state-builder.ts';
import { OPTIONS, processTerm, tokenize } from './title-doc.ts';

/** Documents with repeated words, empty fields, accents, case, identifiers, punctuation and overlong words. */
function documents(count: number, seed: number): TitleDoc[] {
  const rand = seededRandom(seed);
  const vocabulary = [
    'Lighthouse',
    'keeper',
    'café',
    'CAFE',
    'capture_output',
    'git-rebase',
    'Ωmega',
    'tide',
    'tides',
    'a',
    'x'.repeat(45),
    'storm',
    'coast',
    'naïve',
    '2024',
    'north-west',
    'bell',
    'lamp',
    'fog',
    'sea',
  ];
  const words = (max: number) =>
    Array.from(
      { length: Math.floor(rand() * max) },
      () => vocabulary[Math.floor(rand() ** 2 * vocabulary.length)],
    ).join(rand() < 0.2 ? ', ' : ' ');
  return Array.from({ length: count }, (_, i) => ({
    id: 1000 + i * 7 + Math.floor(rand() * 5),
    title: words(10),
    headings: rand() < 0.3 ? '' : `${words(6)}\n${words(6)}`,
    url: words(4),
  }));
}

function addAllState(docs: TitleDoc[]): TermSearchState {
  const ms = new TermSearch(OPTIONS);
  ms.addAll(docs);
  return ms.exportState();
}

function built(docs: TitleDoc[]): TermSearchState {
  const builder = new TermStateBuilder({ tokenize, processTerm });
  for (const d of docs) builder.add(d);
  return runSteps(builder.finishSteps());
}

/** Each term's encoded fields and postings, by term (the state's term order aside). */
function postingsByTerm(state: TermSearchState): Map<string, number[]> {
  const out = new Map<string, number[]>();
  let at = 0;
  for (const term of state.terms) {
    const from = at;
    const fields = state.postings[at++];
    for (let k = 0; k < fields; k++) at += 2 + 2 * state.postings[at + 1];
    out.set(term, [...state.postings.subarray(from, at)]);
  }
  assert.equal(at, state.postings.length);
  return out;
}

test('the built state is what exporting an addAll index of the same documents gives (term order aside)', () => {
  const docs = documents(600, 7);
  const expected = addAllState(docs);
  const actual = built(docs);
  assert.equal(actual.documentCount, expected.documentCount);
  assert.equal(actual.nextId, expected.nextId);
  assert.deepEqual(actual.avgFieldLength, expected.avgFieldLength, 'average field lengths identical to the last bit');
  assert.deepEqual([...actual.shortIds], [...expected.shortIds]);
  assert.deepEqual([...actual.ids], [...expected.ids]);
  assert.deepEqual([...actual.fieldLengths], [...expected.fieldLengths]);
  assert.deepEqual(postingsByTerm(actual), postingsByTerm(expected));
  assert.deepEqual(actual.terms, [...actual.terms].sort(), 'terms in alphabetical order');
  assert.ok(
    actual.terms.includes('cafe') && !actual.terms.includes('x'.repeat(45)),
    'processTerm folded and dropped terms',
  );
});

test('an index restored from the built state answers like one built by addAll', () => {
  const docs = documents(400, 11);
  const reference = new TermSearch(OPTIONS);
  reference.addAll(docs);
  const restored = runSteps(TermSearch.restoreSteps(built(docs), OPTIONS));
  for (const q of ['lighthouse', 'cafe', 'capture_output', 'tide', 'north', 'omega', 'storm coast']) {
    for (const opts of [{}, { prefix: true }, { fuzzy: 0.2 }, { combineWith: 'AND' as const }]) {
      const a = reference.search(q, opts).map((r) => [r.id, r.score]);
      const b = restored.search(q, opts).map((r) => [r.id, r.score]);
      assert.deepEqual(b, a, `${q} ${JSON.stringify(opts)}`);
    }
  }
  assert.deepEqual(restored.completions('ti', 5, 0), reference.completions('ti', 5, 0));
});

test('no documents, and a duplicate id is refused as MiniSearch refuses it', () => {
  const empty = built([]);
  assert.equal(empty.documentCount, 0);
  assert.deepEqual(
    empty.avgFieldLength,
    FIELDS.map(() => 0),
  );
  assert.equal(empty.postings.length, 0);
  const builder = new TermStateBuilder({ tokenize, processTerm });
  builder.add({ id: 1, title: 'a', headings: '', url: '' });
  assert.throws(() => builder.add({ id: 1, title: 'b', headings: '', url: '' }), /duplicate document id 1/);
});
