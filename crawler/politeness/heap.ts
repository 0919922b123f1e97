/**
 * Binary min-heaps for the scheduler: pure data structures, no clock. `BinaryHeap` holds plain items
 * (a host's delayed jobs); `IndexedHeap` also lets an item already inside change its key or leave in
 * O(log n), because each item remembers its own position (`heapPos`), so the scheduler can re-order a
 * host or a group whenever its clock changes without searching for it.
 *
 * Why a binary heap rather than a timer wheel: the keys are arbitrary millisecond times (Crawl-delay
 * of an hour, backoff of a day, retries at any moment) and ties must keep a strict order (the one due
 * longest goes first, then the oldest); a wheel would bucket times and need a heap inside each bucket
 * for that order anyway. At 10,000 groups a heap is 14 levels: a few hundred nanoseconds a change.
 */

/** `less(a, b)`: whether `a` comes before `b`. It must be a strict total order for a stable result. */
export type Less<T> = (a: T, b: T) => boolean;

/** A min-heap of plain items ordered by `less`. */
export class BinaryHeap<T> {
  private items: T[] = [];

  constructor(private readonly less: Less<T>) {}

  /** Items inside. */
  get size(): number {
    return this.items.length;
  }

  /** The first item, left inside. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds an item. */
  push(item: T): void {
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  /** Takes out the first item. */
  pop(): T | undefined {
    const items = this.items;
    if (items.length === 0) return undefined;
    const top = items[0];
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      this.down(0);
    }
    return top;
  }

  /** Takes out every item for which `predicate` holds and returns them (order unspecified); O(n). */
  removeWhere(predicate: (item: T) => boolean): T[] {
    const removed: T[] = [];
    const kept: T[] = [];
    for (const item of this.items) (predicate(item) ? removed : kept).push(item);
    if (removed.length === 0) return removed;
    this.items = kept;
    for (let i = (kept.length >> 1) - 1; i >= 0; i--) this.down(i);
    return removed;
  }

  private up(i: number): void {
    const items = this.items;
    const item = items[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(item, items[parent])) break;
      items[i] = items[parent];
      i = parent;
    }
    items[i] = item;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[i];
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.less(items[child + 1], items[child])) child++;
      if (!this.less(items[child], item)) break;
      items[i] = items[child];
      i = child;
    }
    items[i] = item;
  }
}

/** What an IndexedHeap needs of its items: a slot for their position, -1 while outside. */
export interface HeapItem {
  heapPos: number;
}

/**
 * A min-heap whose items know their position, so that one inside can be re-ordered after its key
 * changed (`update`) or taken out (`remove`) in O(log n). An item may be in one IndexedHeap at a time.
 */
export class IndexedHeap<T extends HeapItem> {
  private readonly items: T[] = [];

  constructor(private readonly less: Less<T>) {}

  /** Items inside. */
  get size(): number {
    return this.items.length;
  }

  /** The first item, left inside. */
  peek(): T | undefined {
    return this.items[0];
  }

  /** Whether the item is inside this heap. */
  has(item: T): boolean {
    return item.heapPos >= 0 && this.items[item.heapPos] === item;
  }

  /** Adds an item that is in no heap. */
  push(item: T): void {
    item.heapPos = this.items.length;
    this.items.push(item);
    this.up(item.heapPos);
  }

  /** Takes out an item (no-op if it is not inside). */
  remove(item: T): void {
    if (!this.has(item)) return;
    const i = item.heapPos;
    const last = this.items.pop()!;
    item.heapPos = -1;
    if (last === item) return;
    this.items[i] = last;
    last.heapPos = i;
    this.up(i);
    this.down(last.heapPos);
  }

  /** Puts an item back in order after its key changed, adding it if it is not inside. */
  update(item: T): void {
    if (!this.has(item)) {
      this.push(item);
      return;
    }
    this.up(item.heapPos);
    this.down(item.heapPos);
  }

  /** Re-orders every item after keys changed all at once (e.g. a new default delay); O(n). */
  rebuild(): void {
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** Every item inside, in heap order (not sorted). */
  values(): readonly T[] {
    return this.items;
  }

  private place(item: T, i: number): void {
    this.items[i] = item;
    item.heapPos = i;
  }

  private up(i: number): void {
    const items = this.items;
    const item = items[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(item, items[parent])) break;
      this.place(items[parent], i);
      i = parent;
    }
    this.place(item, i);
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[i];
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.less(items[child + 1], items[child])) child++;
      if (!this.less(items[child], item)) break;
      this.place(items[child], i);
      i = child;
    }
    this.place(item, i);
  }
}
