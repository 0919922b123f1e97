/**
 * Builds the title index's state (TermSearchState, term-search.ts) from documents in two passes
 * over flat arrays, instead of adding them to MiniSearch one at a time. Measured at 100k generated
 * pages (25 words each): about 1.5 s, where MiniSearch's addAll takes 4.6-6 s (a term-tree lookup
 * and a Map update per word, interleaved, so the garbage collector keeps walking growing Maps).
 * TermSearch.restoreSteps then turns the state into the index, as for a snapshot.
 *
 * The state is exactly what exporting an index that `addAll` built from the same documents, in the
 * same order, would give: short ids 0..n-1, field lengths (distinct tokens before processTerm, as
 * MiniSearch counts them), the running average field lengths computed the same way, and per term
 * the same fields in the same order with the same (short id, frequency) postings. Only the order
 * of the terms differs: alphabetical here, so completions scan words in alphabetical order.
 * Pure: no I/O; in steps, so that a caller can give the event loop a turn.
 */
import { FIELDS, RESTORE_POSTINGS_PER_STEP } from './term-search.ts';
import type { TermSearchState, TitleDoc } from './term-search.ts';

/** Turns a field's text into tokens, and a token into an indexed term (null or '' drops it). */
export interface TermFunctions {
  tokenize: (text: string) => string[];
  processTerm: (term: string) => string | null | undefined | false;
}

const BLOCK_BITS = 20;
const BLOCK = 1 << BLOCK_BITS;

/**
 * A list of u32 in blocks of 2^20: it grows without copying (a doubling array would copy hundreds
 * of MB in one go at a million pages, stalling the event loop), and `finishSteps` yields after each
 * block it walks.
 */
class U32Blocks {
  readonly blocks: Uint32Array[] = [];
  length = 0;

  push(v: number): void {
    const at = this.length & (BLOCK - 1);
    if (at === 0) this.blocks.push(new Uint32Array(BLOCK));
    this.blocks[this.blocks.length - 1][at] = v;
    this.length++;
  }
}

/** Collects documents (`add`), then produces their TermSearchState (`finishSteps`). */
export class TermStateBuilder {
  readonly #fns: TermFunctions;
  readonly #ids: number[] = [];
  readonly #seen = new Set<number>();
  readonly #fieldLengths: number[] = [];
  readonly #avg: number[] = FIELDS.map(() => 0);
  readonly #termIds = new Map<string, number>();
  readonly #terms: string[] = [];
  /** One entry per indexed token: key = term id × fields + field id, and the document's short id. */
  readonly #keys = new U32Blocks();
  readonly #shortIds = new U32Blocks();
  #finished = false;

  /** A builder using the index's own tokenizer and term processing. */
  constructor(fns: TermFunctions) {
    this.#fns = fns;
  }

  /** Documents added so far. */
  get size(): number {
    return this.#ids.length;
  }

  /** Adds a document (its short id is the number added before it); throws on a duplicate id, as MiniSearch does. */
  add(doc: TitleDoc): void {
    if (this.#finished) throw new Error('term-state-builder: add after finish');
    if (this.#seen.has(doc.id)) throw new Error(`term-state-builder: duplicate document id ${doc.id}`);
    this.#seen.add(doc.id);
    const shortId = this.#ids.length;
    this.#ids.push(doc.id);
    const F = FIELDS.length;
    for (let f = 0; f < F; f++) {
      const tokens = this.#fns.tokenize(String(doc[FIELDS[f]]));
      const length = new Set(tokens).size;
      this.#fieldLengths.push(length);
      // MiniSearch's running average, step for step (so the floats come out identical).
      this.#avg[f] = (this.#avg[f] * shortId + length) / (shortId + 1);
      for (const token of tokens) {
        const term = this.#fns.processTerm(token);
        if (!term) continue;
        let t = this.#termIds.get(term);
        if (t === undefined) {
          t = this.#terms.length;
          this.#termIds.set(term, t);
          this.#terms.push(term);
        }
        this.#keys.push(t * F + f);
        this.#shortIds.push(shortId);
      }
    }
  }

  /**
   * The state of everything added, in steps: the generator yields after about
   * RESTORE_POSTINGS_PER_STEP postings and returns the state. The builder cannot be used after.
   */
  *finishSteps(): Generator<void, TermSearchState, void> {
    this.#finished = true;
    const F = FIELDS.length;
    const n = this.#ids.length;
    const tokens = this.#keys.length;
    const nKeys = this.#terms.length * F;
    // Group the tokens by (term, field), keeping document order within a group (a counting sort).
    const start = new Uint32Array(nKeys + 1);
    const first = new Uint32Array(nKeys).fill(0xffffffff);
    for (let b = 0; b < this.#keys.blocks.length; b++) {
      const keys = this.#keys.blocks[b];
      const base = b * BLOCK;
      const end = Math.min(BLOCK, tokens - base);
      for (let j = 0; j < end; j++) {
        const k = keys[j];
        if (start[k + 1]++ === 0) first[k] = base + j;
      }
      yield;
    }
    let keysUsed = 0;
    for (let k = 0; k < nKeys; k++) {
      if (start[k + 1] > 0) keysUsed++;
      start[k + 1] += start[k];
    }
    const fill = start.slice(0, nKeys);
    const grouped = new Uint32Array(tokens);
    for (let b = 0; b < this.#keys.blocks.length; b++) {
      const keys = this.#keys.blocks[b];
      const sids = this.#shortIds.blocks[b];
      const end = Math.min(BLOCK, tokens - b * BLOCK);
      for (let j = 0; j < end; j++) grouped[fill[keys[j]]++] = sids[j];
      yield;
    }

    const order = this.#terms.map((_, t) => t).sort((a, b) => (this.#terms[a] < this.#terms[b] ? -1 : 1));
    // At most: per term its field count, per field its id and count, per token a pair.
    const out = new Uint32Array(this.#terms.length + 2 * keysUsed + 2 * tokens);
    let w = 0;
    let sinceYield = 0;
    const fieldOrder: number[] = [];
    for (const t of order) {
      // Fields in the order the term first appeared in them (MiniSearch's Map order).
      fieldOrder.length = 0;
      for (let f = 0; f < F; f++) if (start[t * F + f + 1] > start[t * F + f]) fieldOrder.push(f);
      fieldOrder.sort((a, b) => first[t * F + a] - first[t * F + b]);
      out[w++] = fieldOrder.length;
      for (const f of fieldOrder) {
        const from = start[t * F + f];
        const to = start[t * F + f + 1];
        out[w++] = f;
        const countAt = w++;
        let docs = 0;
        for (let i = from; i < to; ) {
          const sid = grouped[i];
          let freq = 0;
          while (i < to && grouped[i] === sid) {
            freq++;
            i++;
          }
          out[w++] = sid;
          out[w++] = freq;
          docs++;
          if (++sinceYield >= RESTORE_POSTINGS_PER_STEP) {
            // Also inside one term: a word of every page (a host name) has as many postings as pages.
            sinceYield = 0;
            yield;
          }
        }
        out[countAt] = docs;
      }
    }
    const shortIds = new Uint32Array(n);
    for (let i = 0; i < n; i++) shortIds[i] = i;
    return {
      documentCount: n,
      nextId: n,
      avgFieldLength: [...this.#avg],
      shortIds,
      ids: Float64Array.from(this.#ids),
      fieldLengths: Uint32Array.from(this.#fieldLengths),
      terms: order.map((t) => this.#terms[t]),
      postings: out.subarray(0, w),
    };
  }
}
