/**
 * Compiles one robots.txt group's rules into a flat, JSON-able form that robots-matcher.ts checks URLs
 * against in a bounded number of steps. Pure. Done where the file is read (a crawler worker): the form
 * crosses IPC to the crawler primary, which adopts it without reading the file (see robots.ts).
 *
 * - runs of `*` collapse to one, a trailing `*` is dropped (it adds nothing to a prefix match) and `*$`
 *   at the end means the same as no `$`; rules that become the same pattern are kept once, with the
 *   highest precedence among them;
 * - precedence (a rule's key) is the pattern's length as written (in octets: patterns are ASCII once
 *   canonical), as robots-parser and Google count it, doubled, plus one for allow: the highest
 *   matching key wins, so the longest match wins and allow wins a tie (RFC 9309 §2.2.2);
 * - each rule is filed under its literal prefix (the text before its first `*`). The prefixes are kept
 *   sorted, each with a link to the longest other prefix it starts with, so a binary search and a walk
 *   up those links find every prefix a path starts with;
 * - the wildcard rules of a prefix are listed highest key first; their literal segments are kept end to
 *   end in one string.
 * Linear in the patterns' bytes, plus a sort. A generator that pauses (yields) every WORK_PER_PAUSE rules,
 * so that the worker compiling a file of tens of thousands of rules keeps serving its other fetches.
 */
import type { CompactRules } from '../common/compiled-robots.ts';

export type { CompactRules } from '../common/compiled-robots.ts';

/** Rules handled between two pauses of compileRules. */
export const WORK_PER_PAUSE = 2048;

/** One rule of the chosen group as read: allow or disallow, its pattern in canonical form (see robots.ts). */
export interface RobotsRule {
  allow: boolean;
  pattern: string;
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

/** Runs a generator that pauses (such as compileRules) to its end, without pausing, and returns its result. */
export function finish<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The index of the last of the sorted `prefixes` that sorts at or before `text`, or -1. */
export function lastAtOrBefore(prefixes: readonly string[], text: string): number {
  let lo = 0;
  let hi = prefixes.length - 1;
  let last = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (prefixes[mid] <= text) {
      last = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return last;
}

/**
 * Compiles the rules of our group (patterns canonical) into the flat form robots-matcher.ts checks
 * against; pauses every WORK_PER_PAUSE rules (see the module comment).
 */
export function* compileRules(
  rules: readonly RobotsRule[] | readonly (readonly RobotsRule[])[],
): Generator<void, CompactRules> {
  // Each loop runs in a plain function, over WORK_PER_PAUSE items at a time, which V8 optimizes as it
  // runs; a generator's own loops it would not.
  const keys = new Map<string, number>(); // shape → its highest key
  for (const chunk of asChunks(rules)) {
    for (let from = 0; from < chunk.length; from += WORK_PER_PAUSE) {
      mergeShapes(chunk, from, Math.min(chunk.length, from + WORK_PER_PAUSE), keys);
      yield;
    }
  }
  const ids = [...keys.keys()];
  const shapes: Shape[] = [];
  for (let from = 0; from < ids.length; from += WORK_PER_PAUSE) {
    for (let i = from; i < Math.min(ids.length, from + WORK_PER_PAUSE); i++)
      shapes.push(shapeOf(ids[i], keys.get(ids[i])!));
    yield;
  }
  const sorted = shapes.map((shape) => shape.prefix).sort();
  const prefixes = sorted.filter((p, i) => i === 0 || p !== sorted[i - 1]);
  const out: CompactRules = {
    size: keys.size,
    prefixes,
    parent: linkPrefixes(prefixes),
    literalKey: new Array<number>(prefixes.length).fill(-1),
    exactKey: new Array<number>(prefixes.length).fill(-1),
    wildAt: [0],
    key: [],
    anchored: [],
    minLength: [],
    segAt: [0],
    charAt: [0],
    chars: '',
  };
  yield;
  const wild: Shape[][] = Array.from({ length: prefixes.length }, () => []);
  for (let from = 0; from < shapes.length; from += WORK_PER_PAUSE) {
    fileShapes(shapes, from, Math.min(shapes.length, from + WORK_PER_PAUSE), out, wild);
    yield;
  }
  flatten(wild, out);
  return out;
}

/** The rules as chunks: a flat list is one chunk (a robots.txt's rules come as its groups' arrays). */
function asChunks(
  rules: readonly RobotsRule[] | readonly (readonly RobotsRule[])[],
): readonly (readonly RobotsRule[])[] {
  return rules.length > 0 && Array.isArray(rules[0])
    ? (rules as readonly (readonly RobotsRule[])[])
    : [rules as readonly RobotsRule[]];
}

/** Merges `rules[from, to)` into `keys` (shape → its highest key). */
function mergeShapes(rules: readonly RobotsRule[], from: number, to: number, keys: Map<string, number>): void {
  for (let i = from; i < to; i++) {
    const rule = rules[i];
    const key = rule.pattern.length * 2 + (rule.allow ? 1 : 0);
    const id = shapeId(rule.pattern);
    const seen = keys.get(id);
    if (seen === undefined || key > seen) keys.set(id, key);
  }
}

/** For each of the sorted `prefixes`, the index of the longest other one it starts with, or -1. */
function linkPrefixes(prefixes: readonly string[]): number[] {
  const parent = new Array<number>(prefixes.length);
  // In sorted order a string comes after the prefixes it starts with, and after their other descendants.
  const stack: number[] = [];
  for (let i = 0; i < prefixes.length; i++) {
    while (stack.length > 0 && !prefixes[i].startsWith(prefixes[stack[stack.length - 1]])) stack.pop();
    parent[i] = stack.length > 0 ? stack[stack.length - 1] : -1;
    stack.push(i);
  }
  return parent;
}

/** Files `shapes[from, to)` under their prefixes: literal ones as keys of `out`, wildcard ones in `wild`. */
function fileShapes(shapes: readonly Shape[], from: number, to: number, out: CompactRules, wild: Shape[][]): void {
  for (let j = from; j < to; j++) {
    const shape = shapes[j];
    const i = lastAtOrBefore(out.prefixes, shape.prefix);
    if (shape.segments.length > 0) wild[i].push(shape);
    else if (shape.anchored) out.exactKey[i] = Math.max(out.exactKey[i], shape.key);
    else out.literalKey[i] = Math.max(out.literalKey[i], shape.key);
  }
}

/** Lays the wildcard rules out in `out`, each prefix's highest key first, their segments end to end. */
function flatten(wild: Shape[][], out: CompactRules): void {
  const chars: string[] = [];
  let length = 0;
  for (const list of wild) {
    list.sort((a, b) => b.key - a.key);
    for (const { prefix, segments, anchored, key } of list) {
      out.key.push(key);
      out.anchored.push(anchored ? 1 : 0);
      let minLength = prefix.length;
      for (const segment of segments) {
        chars.push(segment);
        length += segment.length;
        minLength += segment.length;
        out.charAt.push(length);
      }
      out.minLength.push(minLength);
      out.segAt.push(out.charAt.length - 1);
    }
    out.wildAt.push(out.key.length);
  }
  out.chars = chars.join('');
}
