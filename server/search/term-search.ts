/**
 * The MiniSearch index behind the title index (title-index.ts): MiniSearch plus term completion
 * and similar-word lookup straight from its term tree, and its state as flat arrays (what a snapshot
 * holds, title-snapshot.ts) with a restore from them.
 *
 * Export and restore read and write MiniSearch's protected fields (the same ones its own
 * toJSON/loadJS use). They are used instead of toJSON/loadJSON because, measured at 100k generated
 * pages: loadJSON parses one object per posting and returns a plain MiniSearch (not this subclass),
 * while restoring from flat arrays builds each term's maps in one go, about 1 s where adding the
 * documents again takes about 9 s. A test checks that a restored index answers like the original.
 */
import MiniSearch from 'minisearch';
import type { Options } from 'minisearch';
import { packedAsMap } from './packed-postings.ts';

/** A page as the title index holds it. */
export interface TitleDoc {
  id: number;
  title: string;
  headings: string;
  url: string;
}

/** Indexed fields, in MiniSearch field-id order. */
export const FIELDS = ['title', 'headings', 'url'] as const;
/** Field weights of the title index: a title word counts most. */
export const TITLE_BOOST = { title: 3, headings: 2, url: 1.5 } as const;
/** Most indexed words looked at when completing a prefix. */
export const MAX_COMPLETION_SCAN = 3000;
/** Postings exported or restored per step of `exportSteps`/`restoreSteps` (a few tens of ms each). */
export const RESTORE_POSTINGS_PER_STEP = 100_000;
/** Documents exported or restored per step of `exportSteps`/`restoreSteps`. */
export const RESTORE_DOCS_PER_STEP = 20_000;

const FIELD_WEIGHT_BY_ID: number[] = FIELDS.map((f) => TITLE_BOOST[f]);

type TermData = Map<number, Map<number, number>>;
/** A word's data in the term tree, as `terms` hands it to `weightOf`. */
export type TermHandle = { readonly termHandle: unique symbol };
/** A node of MiniSearch's term tree: edges to child nodes, and under the key '' the data of the word ending here. */
type TreeNode = Map<string, TreeNode | TermData>;

/**
 * A TermSearch as flat arrays. Documents: `ids[i]` has MiniSearch short id `shortIds[i]` and field
 * lengths `fieldLengths[i * FIELDS.length + f]`. Terms: `terms[t]` has, in order in `postings`, its
 * number of fields, then per field: field id, number of documents n, then n pairs (short id,
 * frequency). Only current documents are in it (discarded ones are left out).
 */
export interface TermSearchState {
  documentCount: number;
  nextId: number;
  avgFieldLength: number[];
  shortIds: Uint32Array;
  ids: Float64Array;
  fieldLengths: Uint32Array;
  terms: string[];
  postings: Uint32Array;
}

/** A state that cannot be restored (inconsistent arrays). */
export class TermStateError extends Error {
  override name = 'TermStateError';
}

/** A Uint32Array that grows as it is written. */
class U32Writer {
  #buf: Uint32Array;
  #len = 0;

  constructor(capacity: number) {
    this.#buf = new Uint32Array(Math.max(1024, capacity));
  }

  get length(): number {
    return this.#len;
  }

  push(v: number): void {
    if (this.#len === this.#buf.length) {
      const bigger = new Uint32Array(this.#buf.length * 2);
      bigger.set(this.#buf);
      this.#buf = bigger;
    }
    this.#buf[this.#len++] = v;
  }

  set(at: number, v: number): void {
    this.#buf[at] = v;
  }

  truncate(len: number): void {
    this.#len = len;
  }

  done(): Uint32Array {
    return this.#buf.subarray(0, this.#len);
  }
}

/** The order of completions: most widespread first, then alphabetical (by UTF-16 code units). */
export function byWeight(a: { term: string; weight: number }, b: { term: string; weight: number }): number {
  return b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);
}

/** Runs a generator of steps (exportSteps, restoreSteps, TermStateBuilder.finishSteps) to its end at once. */
export function runSteps<T>(steps: Generator<void, T, void>): T {
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** MiniSearch plus term completion straight from its term tree (no scoring of documents). */
export class TermSearch extends MiniSearch<TitleDoc> {
  /** Documents holding the term, weighted by field boost (discarded ones may still count until vacuuming). */
  #weigh(data: TermData): number {
    let w = 0;
    for (const [fieldId, docs] of data) w += docs.size * (FIELD_WEIGHT_BY_ID[fieldId] ?? 1);
    return w;
  }

  /** True when some current (not discarded) document holds the term; usually the first one looked at. */
  #alive(data: TermData): boolean {
    for (const docs of data.values())
      for (const shortId of docs.keys()) if (this._documentIds.has(shortId)) return true;
    return false;
  }

  /**
   * Indexed words starting with `prefix`, most widespread first (weighted by field boost), among the
   * first `scan` words of the term tree under the prefix (default MAX_COMPLETION_SCAN).
   */
  completions(
    prefix: string,
    limit: number,
    fuzzy: number,
    scan = MAX_COMPLETION_SCAN,
  ): Array<{ term: string; weight: number }> {
    const found = new Map<string, number>();
    let scanned = 0;
    for (const [term, data] of this._index.atPrefix(prefix)) {
      if (++scanned > scan) break; // a 1-2 letter prefix starts thousands of words
      if (this.#alive(data)) found.set(term, this.#weigh(data));
    }
    if (fuzzy > 0 && found.size === 0) {
      for (const [term, [data]] of this._index.fuzzyGet(prefix, fuzzy)) {
        if (this.#alive(data)) found.set(term, this.#weigh(data) / 2);
      }
    }
    return [...found]
      .map(([term, weight]) => ({ term, weight }))
      .sort(byWeight)
      .slice(0, limit);
  }

  /**
   * Every indexed word in the term tree's order (the order `completions` scans a prefix in), with a
   * handle for `weightOf`: what a table of completions for many prefixes at once is built from
   * (short-prefix-table.ts), weighing only the words it keeps.
   */
  *terms(): Generator<[term: string, handle: TermHandle], void, void> {
    // Straight over the term tree (SearchableMap's _tree: a Map per node, '' the key of a word's data)
    // in the order its iterator yields (a node's keys last to first): the iterator rebuilds every word
    // from its whole path, which made one pass over all the words several times slower.
    const root = (this._index as unknown as { _tree: TreeNode })._tree;
    const stack: Array<{ node: TreeNode; keys: string[]; prefix: string }> = [
      { node: root, keys: [...root.keys()], prefix: '' },
    ];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const key = top.keys.pop();
      if (key === undefined) {
        stack.pop();
        continue;
      }
      const child = top.node.get(key);
      if (key === '') {
        yield [top.prefix, child as unknown as TermHandle];
      } else {
        const node = child as TreeNode;
        stack.push({ node, keys: [...node.keys()], prefix: top.prefix + key });
      }
    }
  }

  /**
   * The weight `completions` gives a word of `terms` (see #weigh), or undefined when no current
   * document holds it (no document is looked up while nothing was discarded since the last vacuum).
   */
  weightOf(handle: TermHandle): number | undefined {
    const data = handle as unknown as TermData;
    return this.dirtCount === 0 || this.#alive(data) ? this.#weigh(data) : undefined;
  }

  /** Postings (document × field) of an indexed word; 0 when absent. */
  postings(term: string): number {
    const data = this._index.get(term);
    if (data === undefined) return 0;
    let n = 0;
    for (const docs of data.values()) n += docs.size;
    return n;
  }

  /** Postings of all indexed words starting with `prefix`, counting no further than `cap`. */
  prefixPostings(prefix: string, cap: number): number {
    let n = 0;
    for (const [, data] of this._index.atPrefix(prefix)) {
      for (const docs of data.values()) n += docs.size;
      if (n > cap) return n;
    }
    return n;
  }

  /** Indexed words within `distance` edits of `term`, closest first, then most widespread. */
  similar(term: string, distance: number, limit: number): string[] {
    const found: Array<{ term: string; distance: number; weight: number }> = [];
    for (const [t, [data, d]] of this._index.fuzzyGet(term, distance)) {
      if (t !== term && this.#alive(data)) found.push({ term: t, distance: d, weight: this.#weigh(data) });
    }
    return found
      .sort((a, b) => a.distance - b.distance || b.weight - a.weight || a.term.localeCompare(b.term))
      .slice(0, limit)
      .map((f) => f.term);
  }

  /** Indexed words within `distance` edits of `term` (not `term` itself), with their weight (see #weigh). */
  similarWeighted(term: string, distance: number): Array<{ term: string; weight: number }> {
    const found: Array<{ term: string; weight: number }> = [];
    for (const [t, [data]] of this._index.fuzzyGet(term, distance)) {
      if (t !== term && this.#alive(data)) found.push({ term: t, weight: this.#weigh(data) });
    }
    return found;
  }

  /** The index as flat arrays (see TermSearchState), without discarded documents, at once. */
  exportState(): TermSearchState {
    return runSteps(this.exportSteps());
  }

  /**
   * exportState in steps: yields after about RESTORE_POSTINGS_PER_STEP postings. The caller must
   * not add or discard documents until it is done (searching is fine).
   */
  *exportSteps(): Generator<void, TermSearchState, void> {
    const live = this._documentIds;
    const n = live.size;
    const shortIds = new Uint32Array(n);
    const ids = new Float64Array(n);
    const fieldLengths = new Uint32Array(n * FIELDS.length);
    let i = 0;
    for (const [shortId, id] of live) {
      shortIds[i] = shortId;
      ids[i] = id as number;
      const lengths = this._fieldLength.get(shortId);
      for (let f = 0; f < FIELDS.length; f++) fieldLengths[i * FIELDS.length + f] = lengths?.[f] ?? 0;
      i++;
      if (i % RESTORE_DOCS_PER_STEP === 0) yield;
    }
    const terms: string[] = [];
    // Sized in advance (a doubling array would copy hundreds of MB in one step at a million pages).
    let capacity = 0;
    for (const [, data] of this._index) {
      capacity += 1;
      for (const docs of data.values()) capacity += 2 + 2 * docs.size;
    }
    yield;
    const out = new U32Writer(capacity);
    // Without discards since the last vacuum every posting is current (no lookup per posting).
    const clean = this._dirtCount === 0;
    let count = 0;
    let sinceYield = 0;
    for (const [term, data] of this._index) {
      const termAt = out.length;
      out.push(0);
      let fields = 0;
      for (const [fieldId, docs] of data) {
        const fieldAt = out.length;
        out.push(fieldId);
        out.push(0);
        count = 0;
        for (const [shortId, freq] of docs) {
          if (++sinceYield >= RESTORE_POSTINGS_PER_STEP) {
            // Also inside one term: a word of every page (a host name) has as many postings as pages.
            sinceYield = 0;
            yield;
          }
          if (!clean && !live.has(shortId)) continue;
          out.push(shortId);
          out.push(freq);
          count++;
        }
        if (count === 0) {
          out.truncate(fieldAt);
        } else {
          out.set(fieldAt + 1, count);
          fields++;
        }
      }
      if (fields === 0) {
        out.truncate(termAt);
      } else {
        out.set(termAt, fields);
        terms.push(term);
      }
    }
    return {
      documentCount: this._documentCount,
      nextId: this._nextId,
      avgFieldLength: [...this._avgFieldLength],
      shortIds,
      ids,
      fieldLengths,
      terms,
      postings: out.done(),
    };
  }

  /**
   * Rebuilds an index from `state` with `options` (those it was built with), in steps: the
   * generator yields after about RESTORE_POSTINGS_PER_STEP postings so a caller can give the event
   * loop a turn, and returns the index. Throws TermStateError when the arrays do not fit together.
   */
  static *restoreSteps(state: TermSearchState, options: Options<TitleDoc>): Generator<void, TermSearch, void> {
    const F = FIELDS.length;
    const n = state.shortIds.length;
    const fail = (what: string): never => {
      throw new TermStateError(`term-search: snapshot state is inconsistent (${what})`);
    };
    if (state.ids.length !== n || state.fieldLengths.length !== n * F || state.documentCount !== n)
      fail('document arrays');
    if (state.avgFieldLength.length !== F || !Number.isSafeInteger(state.nextId) || state.nextId < n) fail('counters');
    const ms = new TermSearch(options);
    ms._documentCount = n;
    ms._nextId = state.nextId;
    ms._avgFieldLength = [...state.avgFieldLength];
    for (let i = 0; i < n; i++) {
      const shortId = state.shortIds[i];
      const id = state.ids[i];
      if (shortId >= state.nextId || ms._documentIds.has(shortId) || ms._idToShortId.has(id)) fail('document ids');
      ms._documentIds.set(shortId, id);
      ms._idToShortId.set(id, shortId);
      const lengths = new Array<number>(F);
      for (let f = 0; f < F; f++) lengths[f] = state.fieldLengths[i * F + f];
      ms._fieldLength.set(shortId, lengths);
      if (i % RESTORE_DOCS_PER_STEP === RESTORE_DOCS_PER_STEP - 1) yield;
    }
    const p = state.postings;
    let at = 0;
    let sinceYield = 0;
    for (const term of state.terms) {
      if (at >= p.length) fail('postings end early');
      const fields = p[at++];
      if (fields === 0 || fields > F) fail('field count');
      const data: TermData = new Map();
      for (let k = 0; k < fields; k++) {
        const fieldId = p[at];
        const count = p[at + 1];
        at += 2;
        if (fieldId >= F || count === 0 || at + 2 * count > p.length) fail('field entry');
        const from = at;
        for (let j = 0; j < count; j++, at += 2) {
          if (p[at] >= state.nextId || p[at + 1] === 0) fail('posting');
        }
        try {
          data.set(fieldId, packedAsMap(p, from, at));
        } catch {
          fail('duplicate posting');
        }
        sinceYield += count;
      }
      ms._index.set(term, data);
      if (sinceYield >= RESTORE_POSTINGS_PER_STEP) {
        sinceYield = 0;
        yield;
      }
    }
    if (at !== p.length) fail('postings left over');
    return ms;
  }
}
