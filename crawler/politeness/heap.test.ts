import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BinaryHeap, IndexedHeap } from './heap.ts';

/** A small deterministic generator (an LCG), so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

interface Item {
  key: number;
  id: number;
  heapPos: number;
}
const less = (a: Item, b: Item) => a.key < b.key || (a.key === b.key && a.id < b.id);
const byOrder = (a: Item, b: Item) => (less(a, b) ? -1 : less(b, a) ? 1 : 0);

describe('BinaryHeap', () => {
  test('pops in order, ties by the comparator, over random pushes and pops', () => {
    const random = rng(11);
    const heap = new BinaryHeap<Item>(less);
    const model: Item[] = [];
    for (let i = 0; i < 20_000; i++) {
      if (random() < 0.6) {
        const item = { key: Math.floor(random() * 50), id: i, heapPos: -1 };
        heap.push(item);
        model.push(item);
      } else {
        model.sort(byOrder);
        assert.equal(heap.pop(), model.shift(), `pop ${i}`);
      }
      assert.equal(heap.size, model.length);
      assert.equal(heap.peek(), [...model].sort(byOrder)[0]);
    }
  });

  test('removeWhere takes out exactly the matching items and keeps the rest in order', () => {
    const heap = new BinaryHeap<Item>(less);
    const items = Array.from({ length: 200 }, (_, i) => ({ key: (i * 37) % 101, id: i, heapPos: -1 }));
    for (const item of items) heap.push(item);
    const removed = heap.removeWhere((x) => x.key % 3 === 0);
    assert.deepEqual(
      removed.map((x) => x.id).sort((a, b) => a - b),
      items.filter((x) => x.key % 3 === 0).map((x) => x.id),
    );
    const rest: Item[] = [];
    for (let x = heap.pop(); x; x = heap.pop()) rest.push(x);
    assert.deepEqual(rest, items.filter((x) => x.key % 3 !== 0).sort(byOrder));
  });
});

describe('IndexedHeap', () => {
  test('keeps order while items change keys, leave and come back', () => {
    const random = rng(5);
    const heap = new IndexedHeap<Item>(less);
    const items = Array.from({ length: 300 }, (_, id) => ({ key: 0, id, heapPos: -1 }));
    const inside = new Set<Item>();
    for (let i = 0; i < 30_000; i++) {
      const item = items[Math.floor(random() * items.length)];
      const r = random();
      if (r < 0.5) {
        item.key = Math.floor(random() * 1000);
        heap.update(item);
        inside.add(item);
      } else if (r < 0.7) {
        heap.remove(item);
        inside.delete(item);
        assert.equal(item.heapPos, -1);
      } else if (r < 0.8 && heap.size > 0) {
        const top = heap.peek()!;
        heap.remove(top);
        inside.delete(top);
      }
      assert.equal(heap.size, inside.size);
      assert.equal(heap.has(item), inside.has(item));
      assert.equal(heap.peek(), [...inside].sort(byOrder)[0], `step ${i}`);
    }
  });

  test('rebuild restores order after every key changed at once', () => {
    const heap = new IndexedHeap<Item>(less);
    const items = Array.from({ length: 100 }, (_, id) => ({ key: id, id, heapPos: -1 }));
    for (const item of items) heap.push(item);
    for (const item of items) item.key = 1000 - item.id * 3 + (item.id % 7);
    heap.rebuild();
    const order: Item[] = [];
    while (heap.size > 0) {
      const top = heap.peek()!;
      order.push(top);
      heap.remove(top);
    }
    assert.deepEqual(order, [...items].sort(byOrder));
  });
});
