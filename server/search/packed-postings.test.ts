import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { PackedPostings } from './packed-postings.ts';
import { runSteps, TermSearch } from './term-search.ts';
import type { TitleDoc } from './term-search.ts';
import { OPTIONS } from './title-doc.ts';

function same(p: PackedPostings, m: Map<number, number>, why: string): void {
  assert.equal(p.size, m.size, `${why}: size`);
  assert.deepEqual([...p], [...m], `${why}: entries in order`);
  assert.deepEqual([...p.keys()], [...m.keys()], `${why}: keys`);
  assert.deepEqual([...p.values()], [...m.values()], `${why}: values`);
  const seen: Array<[number, number]> = [];
  p.forEach((freq, id) => void seen.push([id, freq]));
  assert.deepEqual(seen, [...m], `${why}: forEach (value, key)`);
}

test('behaves like a Map under the operations MiniSearch makes, in random order', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const rand = seededRandom(seed);
    // Two lists sharing one array, as after a snapshot restore: neither may disturb the other.
    const shared = new Uint32Array([3, 1, 7, 2, 9, 1, 4, 5, 8, 1]);
    const a = new PackedPostings(shared, 0, 6);
    const b = new PackedPostings(shared, 6, 10);
    const ma = new Map([
      [3, 1],
      [7, 2],
      [9, 1],
    ]);
    const mb = new Map([
      [4, 5],
      [8, 1],
    ]);
    let nextId = 10;
    for (let step = 0; step < 400; step++) {
      const [p, m] = rand() < 0.7 ? [a, ma] : [b, mb];
      const r = rand();
      const ids = [...m.keys()];
      const any = ids.length > 0 ? ids[Math.floor(rand() * ids.length)] : nextId;
      if (r < 0.4) {
        // addTerm for a new document: an append, sometimes twice (the word repeats).
        const id = nextId++;
        p.set(id, (p.get(id) ?? 0) + 1);
        m.set(id, (m.get(id) ?? 0) + 1);
        if (rand() < 0.3) {
          p.set(id, (p.get(id) ?? 0) + 1);
          m.set(id, (m.get(id) ?? 0) + 1);
        }
      } else if (r < 0.55) {
        p.set(any, 7);
        m.set(any, 7);
      } else if (r < 0.8) {
        assert.equal(p.delete(any), m.delete(any), `seed ${seed} step ${step}: delete ${any}`);
      } else if (r < 0.9) {
        // What MiniSearch's termResults and vacuum do: read each id's frequency while iterating, and
        // delete some of them on the way.
        const got: Array<[number, number | undefined]> = [];
        for (const id of p.keys()) {
          got.push([id, p.get(id)]);
          if (rand() < 0.3) {
            p.delete(id);
            m.delete(id);
          }
        }
        assert.ok(
          got.every(([, f]) => f !== undefined && f > 0),
          'every iterated id has its frequency',
        );
      } else {
        const probe = Math.floor(rand() * (nextId + 2));
        assert.equal(p.get(probe), m.get(probe), `seed ${seed} step ${step}: get ${probe}`);
        assert.equal(p.has(probe), m.has(probe));
        assert.equal(p.delete(nextId + 5), false, 'deleting an absent id');
      }
      same(p, m, `seed ${seed} step ${step}`);
    }
    same(a, ma, `seed ${seed}: list a at the end`);
    same(b, mb, `seed ${seed}: list b at the end`);
  }
});

test('ids out of order are sorted; a smaller id than the last is inserted in order; duplicates are refused', () => {
  const p = new PackedPostings(new Uint32Array([9, 1, 2, 3, 5, 1]));
  assert.deepEqual(
    [...p],
    [
      [2, 3],
      [5, 1],
      [9, 1],
    ],
  );
  p.set(4, 2);
  p.set(1, 1);
  assert.deepEqual([...p.keys()], [1, 2, 4, 5, 9]);
  assert.throws(() => new PackedPostings(new Uint32Array([5, 1, 2, 1, 5, 2])), /duplicate id 5/);
});

test('an index restored onto packed postings keeps answering like MiniSearch through adds, discards, replacements and a vacuum', async () => {
  const rand = seededRandom(99);
  const words = [
    'harbour',
    'pilot',
    'lamp',
    'keeper',
    'storm',
    'tide',
    'fog',
    'bell',
    'coast',
    'signal',
    'anchor',
    'rope',
  ];
  const doc = (id: number): TitleDoc => {
    const pick = (n: number) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
    return { id, title: pick(4), headings: pick(3), url: pick(2) };
  };
  const reference = new TermSearch({ ...OPTIONS, autoVacuum: false });
  const docs = Array.from({ length: 300 }, (_, i) => doc(i + 1));
  reference.addAll(docs);
  const packed = runSteps(TermSearch.restoreSteps(reference.exportState(), { ...OPTIONS, autoVacuum: false }));
  const apply = (fn: (ms: TermSearch) => void) => {
    fn(reference);
    fn(packed);
  };
  const answers = (ms: TermSearch) =>
    [...words, 'harb', 'sig'].map((q) => ms.search(q, { prefix: true, fuzzy: 0.2 }).map((r) => [r.id, r.score]));

  for (let id = 301; id <= 380; id++) {
    const d = doc(id);
    apply((ms) => ms.add(d)); // appends to packed lists
  }
  for (let id = 1; id <= 200; id += 3) apply((ms) => ms.discard(id));
  for (let id = 2; id <= 60; id += 6) {
    const d = doc(id);
    apply((ms) => ms.replace(d)); // discard + add
  }
  assert.deepEqual(answers(packed), answers(reference), 'after adds, discards and replacements');
  await Promise.all([reference.vacuum(), packed.vacuum()]);
  assert.deepEqual(answers(packed), answers(reference), 'after a vacuum');
  assert.equal(packed.documentCount, reference.documentCount);
  const exported = packed.exportState();
  const fresh = reference.exportState();
  assert.equal(exported.postings.length, fresh.postings.length, 'the vacuum removed the same postings');
});
