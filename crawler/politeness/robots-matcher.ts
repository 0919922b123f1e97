/**
 * The matcher of one robots.txt group's rules (RFC 9309 §2.2.2–2.2.3: `*` is any run of characters, a
 * final `$` is the end of the path, the longest matching pattern wins, allow wins a tie), built so that
 * checking one URL costs a bounded number of counted steps, whatever the file holds. Pure.
 *
 * We do not use robots-parser's matcher: its matches() walks an array as long as the path for every `*`,
 * so a check costs (wildcards x path length), and one robots.txt of 499,000 `*` froze the crawler for minutes.
 *
 * Compiled once per file, in time linear in the patterns' bytes (which RFC 9309's 500 KiB bounds):
 * - runs of `*` collapse to one, a trailing `*` is dropped (it adds nothing to a prefix match) and `*$`
 *   at the end means the same as no `$`; rules that become the same pattern are kept once, with the
 *   highest precedence among them;
 * - precedence is the pattern's length as written (in octets: patterns are ASCII once canonical), as
 *   robots-parser and Google count it, doubled, plus one for allow: the highest matching one wins;
 * - each rule is filed under its literal prefix (the text before its first `*`). The prefixes are kept
 *   sorted, each with a link to the longest other prefix it starts with, so one binary search and a walk
 *   up those links find every prefix a path starts with; only rules filed there are tried, highest first,
 *   and none that ranks below a match already found;
 * - a rule with no `*` matches once its prefix is found (or, with `$`, when the path is exactly it); the
 *   rest of a wildcard rule is matched by a leftmost search for each literal segment in turn, which is
 *   exact for patterns made of literals, `*` and a final `$`, and linear in the path (see search).
 * A check counts its steps and stops once they pass its budget: the caller then knows the file is too
 * costly to check. A step is about the cost of one character compared by the segment search; the other
 * kinds of work are weighed against it (STEP, measured by `npm run bench:robots`).
 */

/** One rule of the chosen group as read: allow or disallow, its pattern in canonical form (see robots.ts). */
export interface RobotsRule {
  allow: boolean;
  pattern: string;
}

/** Limits on the cost of robots.txt checks, in counted steps (see the module comment). */
export const ROBOTS_COST = {
  /**
   * Most steps one check of one URL may take; a file whose rules need more for some URL is unusable (its
   * host is handled as broken until a later robots.txt gives usable rules). Its time on a 2-core machine:
   * docs/reliability.md (`npm run bench:robots`).
   */
  checkSteps: 100_000,
  /**
   * Most steps the checks of one host may take in one turn of that host (see HostBook.robotsVerdict);
   * past them the host's turn ends, its URLs wait for its next turn, and other hosts go first.
   */
  turnSteps: 250_000,
} as const;

/**
 * What each kind of work counts, in steps of one character compared by the segment search (measured:
 * about 4 ns each on a loaded 2-core machine). Trying a rule and starting a search cost about as much as
 * a character; the path's characters skipped by a native one-character search, and those compared by the
 * binary search's native string comparison, are some ten times cheaper (counted one step per 16).
 */
const STEP = { rule: 2, search: 2, nativeChars: 16 } as const;

/** The outcome of one check and the steps it took. */
export type RuleCheck =
  | { kind: 'allowed' | 'disallowed'; steps: number }
  /** Stopped after `steps`, past the budget: the rules are too costly to check this path. */
  | { kind: 'over-budget'; steps: number };

/** A rule with at least one `*` left after its prefix. */
interface WildRule {
  /** Precedence: pattern length x 2, + 1 for allow. */
  key: number;
  /** Where the first segment may start: the prefix's length. */
  start: number;
  /** The literal segments after the prefix, each non-empty, in order. */
  segments: string[];
  /** Where the segments' characters and failure tables start, one after the other, in CompiledRules. */
  tableAt: number;
  /** Whether the last segment must end the path. */
  anchored: boolean;
  /** The shortest path that can match: prefix and segments. */
  minLength: number;
}

/** A rule once its `*` runs are collapsed: its literal prefix, the segments after it, whether `$` ends it. */
interface Shape {
  prefix: string;
  segments: string[];
  anchored: boolean;
  key: number;
}

/**
 * A string that two patterns share exactly when they match the same paths: runs of `*` collapsed to
 * one, a trailing `*` (or `*$`) dropped. A pattern that still ends with `$` is anchored; one whose
 * dropped `*` leaves a literal `$` at its end gets a newline (which no pattern holds) so it does not
 * read as anchored. Usually the pattern itself: no new string, and its hash is computed once.
 */
function shapeId(pattern: string): string {
  let id = pattern.includes('**') ? pattern.replace(/\*{2,}/g, '*') : pattern;
  if (id.endsWith('*$')) id = id.slice(0, -2);
  else if (id.endsWith('*')) id = id.slice(0, -1);
  else return id;
  return id.endsWith('$') ? `${id}\n` : id;
}

/** The shape of the rules of shape `id` (see shapeId) and highest key `key`. */
function shapeOf(id: string, key: number): Shape {
  const anchored = id.endsWith('$');
  const body = anchored || id.endsWith('\n') ? id.slice(0, -1) : id;
  const star = body.indexOf('*');
  if (star < 0) return { prefix: body, segments: [], anchored, key };
  return { prefix: body.slice(0, star), segments: body.slice(star + 1).split('*'), anchored, key };
}

/** One check in progress: the path, its characters as codes once a search needs them, the steps so far. */
interface Probe {
  path: string;
  codes: Uint16Array | undefined;
  steps: number;
  budget: number;
}

/** A group's rules compiled for bounded checks (see the module comment). */
export class CompiledRules {
  /** Distinct literal prefixes, sorted as JavaScript compares strings. */
  private readonly prefixes: string[];
  /** For each prefix, the index of the longest other prefix it starts with, or -1. */
  private readonly parent: Int32Array;
  /** For each prefix, the highest key of rules that are that literal (no `*`, no `$`), or -1. */
  private readonly literalKey: Int32Array;
  /** For each prefix, the highest key of rules that are exactly that path (`$`, no `*`), or -1. */
  private readonly exactKey: Int32Array;
  /** For each prefix, its wildcard rules, highest key first. */
  private readonly wild: (WildRule[] | undefined)[];
  /** Every segment's characters, end to end (see search). */
  private readonly chars: Uint16Array;
  /** Every segment's KMP failure table, at the same places as its characters. */
  private readonly failure: Int32Array;
  /** Rules left once equal ones are merged. */
  readonly size: number;

  constructor(rules: readonly RobotsRule[]) {
    const keys = new Map<string, number>(); // shape → its highest key
    for (const rule of rules) {
      const key = rule.pattern.length * 2 + (rule.allow ? 1 : 0);
      const id = shapeId(rule.pattern);
      const seen = keys.get(id);
      if (seen === undefined || key > seen) keys.set(id, key);
    }
    this.size = keys.size;
    const shapes: Shape[] = [];
    keys.forEach((key, id) => shapes.push(shapeOf(id, key)));
    const sorted = shapes.map((shape) => shape.prefix).sort();
    this.prefixes = sorted.filter((p, i) => i === 0 || p !== sorted[i - 1]);
    const n = this.prefixes.length;
    this.parent = new Int32Array(n);
    this.literalKey = new Int32Array(n).fill(-1);
    this.exactKey = new Int32Array(n).fill(-1);
    this.wild = new Array(n);
    // In sorted order a string comes after the prefixes it starts with, and after their other descendants.
    const stack: number[] = [];
    for (let i = 0; i < n; i++) {
      while (stack.length > 0 && !this.prefixes[i].startsWith(this.prefixes[stack[stack.length - 1]])) stack.pop();
      this.parent[i] = stack.length > 0 ? stack[stack.length - 1] : -1;
      stack.push(i);
    }
    let total = 0;
    for (const shape of shapes) for (const segment of shape.segments) total += segment.length;
    this.chars = new Uint16Array(total);
    this.failure = new Int32Array(total);
    let tableAt = 0;
    for (const { prefix, segments, anchored, key } of shapes) {
      const i = this.find(prefix);
      if (segments.length === 0) {
        const best = anchored ? this.exactKey : this.literalKey;
        best[i] = Math.max(best[i], key);
        continue;
      }
      const rule: WildRule = { key, start: prefix.length, segments, tableAt, anchored, minLength: prefix.length };
      for (const segment of segments) {
        for (let k = 0; k < segment.length; k++) this.chars[tableAt + k] = segment.charCodeAt(k);
        fillFailure(this.chars, this.failure, tableAt, segment.length);
        tableAt += segment.length;
        rule.minLength += segment.length;
      }
      (this.wild[i] ??= []).push(rule);
    }
    for (const list of this.wild) list?.sort((a, b) => b.key - a.key);
  }

  /** The index of the last prefix that sorts at or before `text`, or -1. */
  private find(text: string): number {
    let lo = 0;
    let hi = this.prefixes.length - 1;
    let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.prefixes[mid] <= text) {
        last = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return last;
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
    const last = this.find(path);
    const compares = Math.ceil(Math.log2(prefixes.length + 1));
    probe.steps += compares * (1 + path.length / STEP.nativeChars);
    let best = -1;
    const candidates: WildRule[][] = [];
    if (last >= 0) {
      const found = prefixes[last];
      let common = 0;
      while (common < found.length && common < path.length && found.charCodeAt(common) === path.charCodeAt(common)) common++;
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
        const list = this.wild[node];
        if (list) candidates.push(list);
      }
    }
    if (probe.steps > budget) return { kind: 'over-budget', steps: probe.steps };
    for (const list of candidates) {
      for (const rule of list) {
        if (rule.key <= best) break; // the rest of the list ranks lower still
        probe.steps += STEP.rule;
        if (rule.minLength <= path.length && this.matches(rule, probe)) {
          best = rule.key;
          break;
        }
        if (probe.steps > budget) return { kind: 'over-budget', steps: probe.steps };
      }
    }
    return { kind: best < 0 || (best & 1) === 1 ? 'allowed' : 'disallowed', steps: probe.steps };
  }

  /**
   * Whether the wildcard `rule` matches the probe's path (its prefix already does), counting the steps (it
   * stops soon after the budget). Leftmost search of each segment: a later one then has the most room it can have.
   */
  private matches(rule: WildRule, probe: Probe): boolean {
    const { segments, anchored } = rule;
    const path = probe.path;
    let pos = rule.start;
    let at = rule.tableAt;
    const searched = anchored ? segments.length - 1 : segments.length;
    for (let i = 0; i < searched; i++) {
      const found = search(segments[i], this.chars, this.failure, at, probe, pos);
      if (found < 0) return false;
      pos = found + segments[i].length;
      at += segments[i].length;
    }
    if (!anchored) return true;
    const end = segments[segments.length - 1];
    probe.steps += STEP.search + end.length;
    return path.length - end.length >= pos && path.endsWith(end);
  }
}

/**
 * Where `segment` (its characters and failure table at `at` in `chars` and `failure`) first occurs in the
 * probe's path at or after `from`, or -1; -1 too once the probe's steps pass its budget. Knuth-Morris-Pratt,
 * so at most two steps per character of the path; while nothing is matched, the next occurrence of the
 * segment's first character is found by a native one-character indexOf (linear, and fast). Not
 * String#indexOf of the whole segment: V8's is quadratic for some inputs (measured 1 µs a character for
 * a 1,001-character segment in a 6,000-character path).
 */
function search(segment: string, chars: Uint16Array, failure: Int32Array, at: number, probe: Probe, from: number): number {
  const text = probe.path;
  const m = segment.length;
  const n = text.length;
  const first = segment[0];
  probe.steps += STEP.search;
  let codes = probe.codes;
  let q = 0; // characters of the segment matched so far
  for (let i = from; i < n; ) {
    if (q === 0) {
      const next = text.indexOf(first, i);
      probe.steps += ((next < 0 ? n : next) - i) / STEP.nativeChars;
      if (next < 0 || n - next < m) return -1;
      i = next;
    }
    codes ??= probe.codes = codesOf(text);
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

/** The UTF-16 code units of `text`, for the search's inner loop (indexing a typed array is faster than charCodeAt). */
function codesOf(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i);
  return codes;
}

/** Writes the KMP failure table of the `m` characters at `at` in `chars`: for each prefix, its longest proper border. */
function fillFailure(chars: Uint16Array, failure: Int32Array, at: number, m: number): void {
  failure[at] = 0;
  let k = 0;
  for (let i = 1; i < m; i++) {
    const c = chars[at + i];
    while (k > 0 && chars[at + k] !== c) k = failure[at + k - 1];
    if (chars[at + k] === c) k++;
    failure[at + i] = k;
  }
}
