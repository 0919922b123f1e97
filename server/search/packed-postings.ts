/**
 * One term's postings in one field (document short id → term frequency) as (id, frequency) pairs in
 * a Uint32Array, used inside MiniSearch's index in place of the Map it builds itself. MiniSearch
 * keeps a Map per term and field; measured at 100k generated pages (2.4 million postings) its
 * title index took 153 MB of heap, about 56 bytes per posting, so 1.5 GB at a million pages. Here
 * a posting costs 8 bytes, and the lists of a restored snapshot (or of a build at start) are
 * slices of one shared array, so a list costs one small object and no array of its own.
 *
 * It offers the part of Map that MiniSearch (7.x) and term-search.ts use: get, set, delete, has,
 * size, forEach, keys, values, entries and iteration, with Map's semantics for the way MiniSearch
 * calls them. Ids are kept in ascending order, which is also the order MiniSearch inserts them in
 * (short ids only grow), so iteration order is the same as the Map's. Adding a new document
 * appends (a full list moves to an array of its own, doubling); a deleted entry becomes a hole
 * (frequency 0) until an append finds more holes than entries, so deleting while iterating
 * (MiniSearch does, for discarded documents) is safe, as with a Map. `get` of the id the iterator
 * just yielded costs O(1) (MiniSearch reads the frequency of each id it iterates); otherwise it is
 * a binary search.
 */

/** A Map<number, number> subset over sorted (id, frequency) pairs in a Uint32Array (see the file comment). */
export class PackedPostings {
  /** Pairs (id, frequency) from slot #from on; frequency 0 marks a hole. Possibly shared with other lists. */
  #pairs: Uint32Array;
  #from: number;
  /** Slots available from #from (only appends check it). */
  #capacity: number;
  /** Slots used (entries and holes). */
  #used: number;
  /** Live entries. */
  #size: number;
  /** Slot of the id the iterator yielded last (a hint for `get`). */
  #hint = 0;

  /**
   * Postings over `pairs` (id, frequency, id, frequency, ...) between `from` and `to`, which this
   * list then owns: it writes there when a frequency changes (a restored snapshot's array is shared
   * by all its lists, so they cost no array of their own). Ids must be distinct; they are copied
   * and sorted if they are not in ascending order. Frequencies must be at least 1.
   */
  constructor(pairs: Uint32Array, from = 0, to = pairs.length) {
    const n = (to - from) >> 1;
    let sorted = true;
    for (let i = 1; i < n; i++) {
      if (pairs[from + 2 * i] <= pairs[from + 2 * i - 2]) {
        sorted = false;
        break;
      }
    }
    if (sorted) {
      this.#pairs = pairs;
      this.#from = from;
    } else {
      const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => pairs[from + 2 * a] - pairs[from + 2 * b]);
      this.#pairs = new Uint32Array(2 * n);
      this.#from = 0;
      order.forEach((k, i) => {
        this.#pairs[2 * i] = pairs[from + 2 * k];
        this.#pairs[2 * i + 1] = pairs[from + 2 * k + 1];
        if (i > 0 && this.#pairs[2 * i] === this.#pairs[2 * i - 2])
          throw new Error(`packed-postings: duplicate id ${this.#pairs[2 * i]}`);
      });
    }
    this.#capacity = n;
    this.#used = n;
    this.#size = n;
  }

  /** Live entries. */
  get size(): number {
    return this.#size;
  }

  #id(slot: number): number {
    return this.#pairs[this.#from + 2 * slot];
  }

  #freq(slot: number): number {
    return this.#pairs[this.#from + 2 * slot + 1];
  }

  /** The slot holding `id` (live or a hole), or -1. */
  #slot(id: number): number {
    const h = this.#hint;
    if (h < this.#used && this.#id(h) === id) return h;
    let lo = 0;
    let hi = this.#used - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.#id(mid);
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  get(id: number): number | undefined {
    const i = this.#slot(id);
    if (i === -1) return undefined;
    const f = this.#freq(i);
    return f === 0 ? undefined : f;
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  set(id: number, freq: number): this {
    const f = Math.max(1, freq);
    const i = this.#slot(id);
    if (i !== -1) {
      if (this.#freq(i) === 0) this.#size++;
      this.#pairs[this.#from + 2 * i + 1] = f;
      return this;
    }
    if (this.#used - this.#size > this.#size) this.#compact();
    if (this.#used === this.#capacity) this.#grow();
    let at = this.#used;
    // MiniSearch only appends (short ids only grow); anything else is inserted in order.
    while (at > 0 && this.#id(at - 1) > id) at--;
    const base = this.#from + 2 * at;
    this.#pairs.copyWithin(base + 2, base, this.#from + 2 * this.#used);
    this.#pairs[base] = id;
    this.#pairs[base + 1] = f;
    this.#used++;
    this.#size++;
    return this;
  }

  delete(id: number): boolean {
    const i = this.#slot(id);
    if (i === -1 || this.#freq(i) === 0) return false;
    this.#pairs[this.#from + 2 * i + 1] = 0;
    this.#size--;
    return true;
  }

  /** Moves the list to an array of its own, twice as large. */
  #grow(): void {
    const capacity = Math.max(2, this.#capacity * 2);
    const pairs = new Uint32Array(2 * capacity);
    pairs.set(this.#pairs.subarray(this.#from, this.#from + 2 * this.#used));
    this.#pairs = pairs;
    this.#from = 0;
    this.#capacity = capacity;
  }

  /** Drops the holes (only from `set`, never while MiniSearch iterates). */
  #compact(): void {
    const p = this.#pairs;
    let w = this.#from;
    for (let r = 0; r < this.#used; r++) {
      const at = this.#from + 2 * r;
      if (p[at + 1] === 0) continue;
      p[w] = p[at];
      p[w + 1] = p[at + 1];
      w += 2;
    }
    this.#used = (w - this.#from) / 2;
    this.#hint = 0;
  }

  forEach(fn: (freq: number, id: number, map: this) => void): void {
    for (let i = 0; i < this.#used; i++) {
      const f = this.#freq(i);
      if (f !== 0) fn(f, this.#id(i), this);
    }
  }

  *keys(): IterableIterator<number> {
    for (let i = 0; i < this.#used; i++) {
      if (this.#freq(i) === 0) continue;
      this.#hint = i;
      yield this.#id(i);
    }
  }

  *values(): IterableIterator<number> {
    for (let i = 0; i < this.#used; i++) {
      const f = this.#freq(i);
      if (f !== 0) yield f;
    }
  }

  *entries(): IterableIterator<[number, number]> {
    for (let i = 0; i < this.#used; i++) {
      const f = this.#freq(i);
      if (f === 0) continue;
      this.#hint = i;
      yield [this.#id(i), f];
    }
  }

  [Symbol.iterator](): IterableIterator<[number, number]> {
    return this.entries();
  }
}

/** PackedPostings typed as the Map MiniSearch expects in its index (it uses only the methods above). */
export function packedAsMap(pairs: Uint32Array, from?: number, to?: number): Map<number, number> {
  return new PackedPostings(pairs, from, to) as unknown as Map<number, number>;
}
