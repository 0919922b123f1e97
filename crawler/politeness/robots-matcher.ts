/**
 * Checks URLs against one robots.txt group's compiled rules (robots-compile.ts) as RFC 9309 §2.2.2–2.2.3
 * says (`*` is any run of characters, a final `$` is the end of the path, the longest match wins, allow
 * wins a tie), in a bounded number of counted steps whatever the file holds. Pure.
 *
 * We do not use robots-parser's matcher: its matches() walks an array as long as the path for every `*`,
 * so a check costs (wildcards x path length), and one robots.txt of 499,000 `*` froze the crawler for minutes.
 *
 * A check finds every prefix the path starts with (a binary search and a walk up the prefixes' links),
 * takes the best literal rule among them, then tries their wildcard rules highest first, none that ranks
 * below a match already found: a leftmost search for each literal segment in turn, which is exact for
 * patterns made of literals, `*` and a final `$`, and linear in the path (see search). It counts its
 * steps and stops once they pass its budget: the caller then knows the file is too costly to check. A
 * step is about the cost of one character compared by the segment search; the other kinds of work are
 * weighed against it (STEP, measured by `npm run bench:robots`).
 */
import { lastAtOrBefore, type CompactRules } from './robots-compile.ts';

/** Limits on the cost of robots.txt checks, in counted steps (see the module comment). */
export const ROBOTS_COST = {
  /**
   * Most steps one check of one URL may take; a file whose rules need more for some URL is unusable (its
   * host is handled as broken until a later robots.txt gives usable rules). Its time on a 2-core machine:
   * docs/reliability.md (`npm run bench:robots`).
   */
  checkSteps: 100_000,
  /**
   * Most steps the checks of one host may take in one turn of that host (see RobotsBook.robotsVerdict);
   * past them the host's turn ends, its URLs wait for its next turn, and other hosts go first.
   */
  turnSteps: 250_000,
} as const;

/**
 * What each kind of work counts, in steps of one character compared by the segment search (measured:
 * 4–8 ns each on a loaded 2-core machine). Trying a rule and starting a search cost about as much as two
 * characters; the path's characters skipped by a native one-character search, and those compared by the
 * binary search's native string comparison, are some ten times cheaper (counted one step per 16); the
 * path's characters copied once into codes for the search, some four times cheaper.
 */
const STEP = { rule: 2, search: 2, nativeChars: 16, copiedChars: 4 } as const;

/** The outcome of one check and the steps it took. */
export type RuleCheck =
  | { kind: 'allowed' | 'disallowed'; steps: number }
  /** Stopped after `steps`, past the budget: the rules are too costly to check this path. */
  | { kind: 'over-budget'; steps: number };

/** One check in progress: the path, its characters as codes once a search needs them, the steps so far. */
interface Probe {
  path: string;
  codes: Uint16Array | undefined;
  steps: number;
  budget: number;
}

/** A group's compiled rules, ready to check paths against (see the module comment and CompactRules). */
export class CompiledRules {
  private readonly prefixes: string[];
  private readonly parent: Int32Array;
  private readonly literalKey: Int32Array;
  private readonly exactKey: Int32Array;
  private readonly wildAt: Int32Array;
  private readonly key: Int32Array;
  private readonly anchored: Uint8Array;
  private readonly minLength: Int32Array;
  private readonly segAt: Int32Array;
  private readonly charAt: Int32Array;
  /** Every segment's characters, end to end. */
  private readonly text: string;
  /** The same as codes, and each segment's KMP failure table at the same places: filled when a search first needs them. */
  private readonly chars: Uint16Array;
  private readonly failure: Int32Array;
  /** 1 for each segment whose codes and failure table are filled. */
  private readonly ready: Uint8Array;
  /** Rules left once equal ones are merged. */
  readonly size: number;

  /**
   * Adopts compiled rules with native copies only: the segments' codes and KMP tables are made when a
   * check first searches for them, within its budget (a segment longer than the path is never searched).
   */
  constructor(c: CompactRules) {
    this.size = c.size;
    this.prefixes = c.prefixes;
    this.parent = Int32Array.from(c.parent);
    this.literalKey = Int32Array.from(c.literalKey);
    this.exactKey = Int32Array.from(c.exactKey);
    this.wildAt = Int32Array.from(c.wildAt);
    this.key = Int32Array.from(c.key);
    this.anchored = Uint8Array.from(c.anchored);
    this.minLength = Int32Array.from(c.minLength);
    this.segAt = Int32Array.from(c.segAt);
    this.charAt = Int32Array.from(c.charAt);
    this.text = c.chars;
    this.chars = new Uint16Array(c.chars.length);
    this.failure = new Int32Array(c.chars.length);
    this.ready = new Uint8Array(Math.max(0, this.charAt.length - 1));
  }

  /**
   * Whether `path` (canonical: path and query, see robots.ts) is allowed, in at most about `budget` steps:
   * past them the check stops and says `over-budget`.
   */
  check(path: string, budget: number = ROBOTS_COST.checkSteps): RuleCheck {
    const prefixes = this.prefixes;
    const probe: Probe = { path, codes: undefined, steps: 0, budget };
    // The last prefix <= path: every prefix of the path is a prefix of it (they sort between). Each of
    // the binary search's native comparisons costs a step, and more for the characters it may compare.
    const last = lastAtOrBefore(prefixes, path);
    probe.steps += Math.ceil(Math.log2(prefixes.length + 1)) * (1 + path.length / STEP.nativeChars);
    let best = -1;
    const nodes: number[] = [];
    if (last >= 0) {
      const found = prefixes[last];
      let common = 0;
      while (common < found.length && common < path.length && found.charCodeAt(common) === path.charCodeAt(common))
        common++;
      probe.steps += common + 1;
      let node = last;
      while (node >= 0 && prefixes[node].length > common) {
        node = this.parent[node];
        probe.steps++;
      }
      // From here up, every node is a prefix of the path.
      for (; node >= 0; node = this.parent[node]) {
        probe.steps++;
        if (this.literalKey[node] > best) best = this.literalKey[node];
        if (this.exactKey[node] > best && prefixes[node].length === path.length) best = this.exactKey[node];
        if (this.wildAt[node + 1] > this.wildAt[node]) nodes.push(node);
      }
    }
    if (probe.steps > budget) return { kind: 'over-budget', steps: probe.steps };
    for (const node of nodes) {
      for (let j = this.wildAt[node]; j < this.wildAt[node + 1]; j++) {
        if (this.key[j] <= best) break; // the rest of the list ranks lower still
        probe.steps += STEP.rule;
        if (this.minLength[j] <= path.length && this.matches(j, prefixes[node].length, probe)) {
          best = this.key[j];
          break;
        }
        if (probe.steps > budget) return { kind: 'over-budget', steps: probe.steps };
      }
    }
    return { kind: best < 0 || (best & 1) === 1 ? 'allowed' : 'disallowed', steps: probe.steps };
  }

  /**
   * Whether wildcard rule `j` matches the probe's path (its prefix, `start` characters, already does),
   * counting the steps (it stops soon after the budget). Leftmost search of each segment: a later one then
   * has the most room it can have.
   */
  private matches(j: number, start: number, probe: Probe): boolean {
    const first = this.segAt[j];
    const last = this.segAt[j + 1] - 1;
    const anchored = this.anchored[j] === 1;
    let pos = start;
    for (let k = first; k <= (anchored ? last - 1 : last); k++) {
      const found = this.search(k, probe, pos);
      if (found < 0) return false;
      pos = found + this.charAt[k + 1] - this.charAt[k];
    }
    if (!anchored) return true;
    // The last segment must end the path, after the others.
    const from = this.charAt[last];
    const m = this.charAt[last + 1] - from;
    const path = probe.path;
    probe.steps += STEP.search + m;
    if (path.length - m < pos) return false;
    for (let q = 0; q < m; q++)
      if (path.charCodeAt(path.length - m + q) !== this.text.charCodeAt(from + q)) return false;
    return true;
  }

  /**
   * Where segment `k` first occurs in the probe's path at or after `from`, or -1; -1 too once the probe's
   * steps pass its budget. Knuth-Morris-Pratt, so at most two steps per character of the path; while
   * nothing is matched, the next occurrence of the segment's first character is found by a native
   * one-character indexOf (linear, and fast). Not String#indexOf of the whole segment: V8's is quadratic
   * for some inputs (measured 1 µs a character for a 1,001-character segment in a 6,000-character path).
   */
  private search(k: number, probe: Probe, from: number): number {
    const { chars, failure } = this;
    const at = this.charAt[k];
    const m = this.charAt[k + 1] - at;
    const text = probe.path;
    const n = text.length;
    if (m > n - from) return -1;
    const first = this.text[at];
    probe.steps += STEP.search;
    if (this.ready[k] === 0) {
      // First search for this segment: its codes and KMP table, two steps a character.
      for (let i = 0; i < m; i++) chars[at + i] = this.text.charCodeAt(at + i);
      fillFailure(chars, failure, at, at + m);
      this.ready[k] = 1;
      probe.steps += 2 * m;
    }
    let codes = probe.codes;
    let q = 0; // characters of the segment matched so far
    for (let i = from; i < n; ) {
      if (q === 0) {
        const next = text.indexOf(first, i);
        probe.steps += ((next < 0 ? n : next) - i) / STEP.nativeChars;
        if (next < 0 || n - next < m) return -1;
        i = next;
      }
      if (codes === undefined) {
        codes = probe.codes = codesOf(text);
        probe.steps += n / STEP.copiedChars;
      }
      const c = codes[i];
      while (q > 0 && chars[at + q] !== c) {
        q = failure[at + q - 1];
        probe.steps++;
      }
      if (chars[at + q] === c) q++;
      probe.steps++;
      i++;
      if (q === m) return i - m;
      if (probe.steps > probe.budget || n - i < m - q) return -1;
    }
    return -1;
  }
}

/** The UTF-16 code units of `text` (indexing a typed array is faster than charCodeAt in the search's loop). */
function codesOf(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i);
  return codes;
}

/** Writes the KMP failure table of `chars[from, to)`: for each prefix of it, its longest proper border. */
function fillFailure(chars: Uint16Array, failure: Int32Array, from: number, to: number): void {
  failure[from] = 0;
  let k = 0;
  for (let i = from + 1; i < to; i++) {
    const c = chars[i];
    while (k > 0 && chars[from + k] !== c) k = failure[from + k - 1];
    if (chars[from + k] === c) k++;
    failure[i] = k;
  }
}
