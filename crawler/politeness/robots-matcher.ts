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
 *   up those links find every prefix a path starts with; only rules filed there are tried;
 * - a rule with no `*` matches once its prefix node is found (or, with `$`, when the path is exactly it);
 *   the rest of a wildcard rule is matched by a leftmost search for each literal segment in turn, which
 *   is exact for patterns made of literals, `*` and a final `$`, and linear in the path.
 * A check counts its steps (characters compared or scanned, plus a fixed cost per rule and per search)
 * and stops when they pass its budget: the caller then knows the file is too costly to check.
 */

/** One rule of the chosen group as read: allow or disallow, its pattern in canonical form (see robots.ts). */
export interface RobotsRule {
  allow: boolean;
  pattern: string;
}

/** Limits on the cost of robots.txt checks, in counted steps (about one character compared or scanned each). */
export const ROBOTS_COST = {
  /**
   * Most steps one check of one URL may take; a file whose rules need more for some URL is unusable (its
   * host is handled as broken until a later robots.txt gives usable rules). Measured worst case on a
   * 2-core machine: see docs/reliability.md (`npm run bench:robots`).
   */
  checkSteps: 400_000,
  /**
   * Most steps the checks of one host may take in one turn of that host (see HostBook.robotsVerdict);
   * past them the host's turn ends, its URLs wait for its next turn, and other hosts go first.
   */
  turnSteps: 1_000_000,
  /** What trying one rule costs, on top of the characters it scans. */
  ruleSteps: 16,
  /** What one segment search costs, on top of the characters it scans. */
  searchSteps: 4,
} as const;

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
  /** Where the segments' failure tables start, one after the other, in CompiledRules.failure. */
  tableAt: number;
  /** Whether the last segment must end the path. */
  anchored: boolean;
  /** The shortest path that can match: prefix and segments. */
  minLength: number;
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

/** A rule once its `*` runs are collapsed: its literal prefix, the segments after it, whether `$` ends it. */
interface Shape {
  prefix: string;
  segments: string[];
  anchored: boolean;
  key: number;
}

/** The shape of the rules of shape `id` (see shapeId) and highest key `key`. */
function shapeOf(id: string, key: number): Shape {
  const anchored = id.endsWith('$');
  const body = anchored || id.endsWith('\n') ? id.slice(0, -1) : id;
  const star = body.indexOf('*');
  if (star < 0) return { prefix: body, segments: [], anchored, key };
  return { prefix: body.slice(0, star), segments: body.slice(star + 1).split('*'), anchored, key };
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
  /** The KMP failure tables of every segment, end to end (see search). */
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
    let tables = 0;
    for (const shape of shapes) for (const segment of shape.segments) tables += segment.length;
    this.failure = new Int32Array(tables);
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
        fillFailure(segment, this.failure, tableAt);
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
    // The last prefix <= path: every prefix of the path is a prefix of it (they sort between). Each
    // native comparison of the binary search counts as a skip over the shorter string.
    let steps = 0;
    let lo = 0;
    let hi = prefixes.length - 1;
    let last = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      steps += 1 + Math.min(prefixes[mid].length, path.length) / SKIP_PER_STEP;
      if (prefixes[mid] <= path) {
        last = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    let best = -1;
    const candidates: WildRule[][] = [];
    if (last >= 0) {
      const found = prefixes[last];
      let common = 0;
      while (common < found.length && common < path.length && found.charCodeAt(common) === path.charCodeAt(common)) common++;
      steps += common + 1;
      let node = last;
      while (node >= 0 && prefixes[node].length > common) {
        node = this.parent[node];
        steps++;
      }
      // From here up, every node is a prefix of the path.
      for (; node >= 0; node = this.parent[node]) {
        steps++;
        if (this.literalKey[node] > best) best = this.literalKey[node];
        if (this.exactKey[node] > best && prefixes[node].length === path.length) best = this.exactKey[node];
        const list = this.wild[node];
        if (list) candidates.push(list);
      }
    }
    if (steps > budget) return { kind: 'over-budget', steps };
    for (const list of candidates) {
      for (const rule of list) {
        if (rule.key <= best) break; // the rest of the list ranks lower still
        steps += ROBOTS_COST.ruleSteps;
        if (rule.minLength <= path.length) {
          const tried = this.tryRule(rule, path, budget - steps);
          steps += tried.steps;
          if (tried.matched) {
            best = rule.key;
            break;
          }
        }
        if (steps > budget) return { kind: 'over-budget', steps };
      }
    }
    return { kind: best < 0 || (best & 1) === 1 ? 'allowed' : 'disallowed', steps };
  }

  /**
   * Whether the wildcard `rule` matches `path` (its prefix already does), and the steps it took (it stops
   * soon after `budget`). Leftmost search of each segment: a later one then has the most room it can have.
   */
  private tryRule(rule: WildRule, path: string, budget: number): { matched: boolean; steps: number } {
    const { segments, anchored } = rule;
    let pos = rule.start;
    let steps = 0;
    let table = rule.tableAt;
    const searched = anchored ? segments.length - 1 : segments.length;
    for (let i = 0; i < searched; i++) {
      const segment = segments[i];
      const found = search(segment, this.failure, table, path, pos, budget - steps);
      steps += ROBOTS_COST.searchSteps + found.steps;
      if (found.at < 0 || steps > budget) return { matched: false, steps };
      pos = found.at + segment.length;
      table += segment.length;
    }
    if (!anchored) return { matched: true, steps };
    const end = segments[segments.length - 1];
    steps += ROBOTS_COST.searchSteps + end.length;
    return { matched: path.length - end.length >= pos && path.endsWith(end), steps };
  }
}

/**
 * Where `segment` first occurs in `text` at or after `from` (-1 if nowhere), and the steps it took:
 * Knuth-Morris-Pratt over the segment's failure table (at `table` in `failure`), so at most two steps
 * per character; while nothing is matched, the next occurrence of the first character is found by
 * indexOf of that one character (linear, and fast), which costs a step per SKIP_PER_STEP characters.
 * Not String#indexOf of the whole segment: V8's is quadratic for some inputs (measured 1 µs a character
 * for a 1,001-character segment in a 6,000-character path). Stops once past `budget` steps.
 */
function search(segment: string, failure: Int32Array, table: number, text: string, from: number, budget: number): { at: number; steps: number } {
  const m = segment.length;
  const n = text.length;
  const first = segment[0];
  let steps = 0;
  let q = 0; // characters of the segment matched so far
  let i = from;
  while (i < n) {
    if (q === 0) {
      const next = text.indexOf(first, i);
      steps += 1 + ((next < 0 ? n : next) - i) / SKIP_PER_STEP;
      if (next < 0 || n - next < m) return { at: -1, steps };
      i = next;
    }
    const c = text.charCodeAt(i);
    while (q > 0 && segment.charCodeAt(q) !== c) {
      q = failure[table + q - 1];
      steps++;
    }
    if (segment.charCodeAt(q) === c) q++;
    steps++;
    i++;
    if (q === m) return { at: i - m, steps };
    if (steps > budget || n - i < m - q) return { at: -1, steps };
  }
  return { at: -1, steps };
}

/** Characters skipped by one-character indexOf per counted step (measured some 20 times cheaper than a KMP step). */
const SKIP_PER_STEP = 8;

/** Writes the KMP failure table of `segment` at `at` in `failure`: for each prefix, its longest proper border. */
function fillFailure(segment: string, failure: Int32Array, at: number): void {
  failure[at] = 0;
  let k = 0;
  for (let i = 1; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    while (k > 0 && segment.charCodeAt(k) !== c) k = failure[at + k - 1];
    if (segment.charCodeAt(k) === c) k++;
    failure[at + i] = k;
  }
}
