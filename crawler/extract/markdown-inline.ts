/**
 * One line of Markdown read as its words: headings, inline links, autolinks and emphasis. Hand-written
 * scanners that give what the regexes they replace gave (text-document.ts used `\[([^\]]*)\]\([^)]*\)`,
 * `(`+)…\1`, `(.*?)\s*#*\s*$` and the like), but never look at a character twice for one reason: a
 * start that must fail the way an earlier one failed is skipped. The regexes rescanned the rest of the
 * line from every `[`, `](`, `<http` or backtick (quadratic), and the heading one was cubic in a run of
 * spaces. Each scanner adds the characters it walks over to `count.steps`, so tests can hold it to a
 * budget. Pure.
 */
import { ChunkedString } from './chunked-string.ts';

/** Characters walked over, summed by the scanners (for tests and benchmarks). */
export interface StepCount {
  steps: number;
}

const WHITESPACE = /\s/;
/** Characters `.` does not match in a JavaScript regex. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

const isSpace = (c: string | undefined): boolean => c !== undefined && WHITESPACE.test(c);

/** Where `needle` is next found in `line` from `from` (-1: nowhere), counting the characters looked at. */
function find(line: string, needle: string, from: number, count: StepCount | undefined): number {
  const at = line.indexOf(needle, from);
  if (count) count.steps += (at === -1 ? line.length : at) - from + 1;
  return at;
}

/** The end of the run of characters from `from` that `inRun` accepts. */
function runEnd(line: string, from: number, inRun: (c: string) => boolean, count: StepCount | undefined): number {
  let i = from;
  while (i < line.length && inRun(line[i])) i++;
  if (count) count.steps += i - from + 1;
  return i;
}

/** A heading line (`## Words ##`): its level and its text, or null for any other line. */
export function markdownHeading(line: string, count?: StepCount): { level: number; text: string } | null {
  // As /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/ read it.
  const lead = runEnd(line, 0, isSpace, count);
  if (lead > 3) return null;
  const hashes = runEnd(line, lead, (c) => c === '#', count);
  const level = hashes - lead;
  if (level < 1 || level > 6 || !isSpace(line[hashes])) return null;
  const start = runEnd(line, hashes, isSpace, count);
  // The text ends where the longest tail of spaces, closing #s and spaces begins.
  let end = line.length;
  while (end > start && isSpace(line[end - 1])) end--;
  while (end > start && line[end - 1] === '#') end--;
  while (end > start && isSpace(line[end - 1])) end--;
  if (count) count.steps += line.length - end + 1;
  const text = line.slice(start, end);
  if (LINE_TERMINATOR.test(text)) return null; // `.` cannot cross it
  if (count) count.steps += text.length;
  return { level, text };
}

/**
 * `line` with each `[words](target)` (after `![words](target)` when `image`) replaced by its words, as
 * `line.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')` does.
 */
function replaceLinks(line: string, image: boolean, count: StepCount | undefined): string {
  const open = image ? '![' : '[';
  const out = new ChunkedString(); // a long line makes many pieces: one large array or cons chain is costly to collect
  let copied = 0;
  let i = 0;
  for (;;) {
    const at = find(line, open, i, count);
    if (at === -1) break;
    const close = find(line, ']', at + open.length, count);
    if (close === -1) break; // no later start finds a `]` either
    if (line[close + 1] !== '(') {
      i = close + 1; // every start before `close` reaches this same `]`
      continue;
    }
    const end = find(line, ')', close + 2, count);
    if (end === -1) break; // nor a `)` after a later `](`
    out.push(line.slice(copied, at), line.slice(at + open.length, close));
    copied = end + 1;
    i = end + 1;
  }
  if (copied === 0) return line;
  out.push(line.slice(copied));
  return out.join();
}

const isAutolinkChar = (c: string): boolean => c !== '>' && !WHITESPACE.test(c);

/** The autolink `<http(s)://…>` starting at `at` (its end, past `>`), or the end of the run that failed. */
function autolinkAt(line: string, at: number, count: StepCount | undefined): { ok: boolean; end: number } {
  const scheme = line.startsWith('<http://', at) ? 8 : line.startsWith('<https://', at) ? 9 : 0;
  if (scheme === 0) return { ok: false, end: at + 1 };
  const end = runEnd(line, at + scheme, isAutolinkChar, count);
  if (end > at + scheme && line[end] === '>') return { ok: true, end: end + 1 };
  return { ok: false, end: Math.max(end, at + 1) };
}

/** `line` with each `<http(s)://…>` replaced by its address, as `/<(https?:\/\/[^>\s]+)>/g` did. */
function replaceAutolinks(line: string, count: StepCount | undefined): string {
  const out = new ChunkedString();
  let copied = 0;
  for (let at = find(line, '<', 0, count); at !== -1; ) {
    const link = autolinkAt(line, at, count);
    if (link.ok) {
      out.push(line.slice(copied, at), line.slice(at + 1, link.end - 1));
      copied = link.end;
    }
    // A `<http` inside a failed run ends at the same place, and fails the same way.
    at = find(line, '<', link.end, count);
  }
  if (copied === 0) return line;
  out.push(line.slice(copied));
  return out.join();
}

const EMPHASIS = '*_`~';
const isEmphasisOrBreak = (c: string): boolean => EMPHASIS.includes(c) || c === '\n';

/**
 * `line` with emphasis and code marks removed around their words, as
 * `/(\*\*|__|\*|_|`+|~~)(?=\S)([^*_`~\n]+?)\1/g` with '$2' did: the words run from after the mark to
 * the next mark character, and count only when the same mark stands there.
 */
function replaceEmphasis(line: string, count: StepCount | undefined): string {
  const out = new ChunkedString();
  let copied = 0;
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (!EMPHASIS.includes(c)) {
      i = runEnd(line, i, (x) => !EMPHASIS.includes(x), count);
      continue;
    }
    let from = i; // where the match starts
    let mark: string;
    let words: number; // where the words start
    if (c === '`') {
      words = runEnd(line, i, (x) => x === '`', count);
      mark = '';
    } else if (c === '~') {
      if (line[i + 1] !== '~') {
        i++;
        continue;
      }
      mark = '~~';
      words = i + 2;
    } else {
      mark = line[i + 1] === c ? c + c : c;
      words = i + mark.length;
    }
    const first = line[words];
    if (first === undefined || isSpace(first) || isEmphasisOrBreak(first)) {
      i = c === '`' ? words : i + 1;
      continue;
    }
    const end = runEnd(line, words, (x) => !isEmphasisOrBreak(x), count);
    if (c === '`') {
      // The longest mark the run offers that the run at `end` repeats: the run's last ticks.
      const closing = runEnd(line, end, (x) => x === '`', count) - end;
      const ticks = Math.min(words - i, closing);
      if (ticks === 0) {
        i = words;
        continue;
      }
      from = words - ticks;
      mark = '`'.repeat(ticks);
    } else if (!line.startsWith(mark, end)) {
      i++;
      continue;
    }
    out.push(line.slice(copied, from), line.slice(words, end));
    copied = end + mark.length;
    i = copied;
  }
  if (copied === 0) return line;
  out.push(line.slice(copied));
  return out.join();
}

/** Markdown inline syntax of one line reduced to the words a reader sees (images and links to their words). */
export function readableMarkdown(line: string, count?: StepCount): string {
  return replaceEmphasis(replaceAutolinks(replaceLinks(replaceLinks(line, true, count), false, count), count), count);
}

const isTargetChar = (c: string): boolean => c !== ')' && c !== '>' && !WHITESPACE.test(c);

/**
 * The end of `](target "title")` whose `](` is at `at`, as `/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/`
 * reads it: `{ target, end }` on a match, else `{ runEnd }` (where its target's run stopped).
 */
function inlineLinkAt(
  line: string,
  at: number,
  count: StepCount | undefined,
): { target: string; end: number } | { runEnd: number } {
  const spaces = runEnd(line, at + 2, isSpace, count);
  const end = runEnd(line, spaces, isTargetChar, count);
  // `<?` takes a `<` when a target is left after it; either way the run, and what follows it, is the same.
  const start = line[spaces] === '<' && end > spaces + 1 ? spaces + 1 : spaces;
  if (end <= start) return { runEnd: end };
  const j = line[end] === '>' ? end + 1 : end;
  const after = runEnd(line, j, isSpace, count);
  if (after > j && line[after] === '"') {
    const quote = find(line, '"', after + 1, count);
    if (quote !== -1) {
      const past = runEnd(line, quote + 1, isSpace, count);
      if (line[past] === ')') return { target: line.slice(start, end), end: past + 1 };
    }
  }
  if (line[after] === ')') return { target: line.slice(start, end), end: after + 1 };
  return { runEnd: end };
}

/**
 * The link targets of one line, in order: `[words](target "title")` and `<http(s)://…>`, as
 * `line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)|<(https?:\/\/[^>\s]+)>/g)` found them.
 */
export function markdownLinkTargets(line: string, count?: StepCount): string[] {
  const targets: string[] = [];
  let nextLink = find(line, '](', 0, count);
  let nextAuto = find(line, '<', 0, count);
  while (nextLink !== -1 || nextAuto !== -1) {
    let resume: number;
    if (nextAuto === -1 || (nextLink !== -1 && nextLink < nextAuto)) {
      const link = inlineLinkAt(line, nextLink, count);
      if ('target' in link) {
        targets.push(link.target);
        resume = link.end;
      } else {
        // A later `](` inside the failed target's run reads the same run and fails the same way.
        nextLink = find(line, '](', Math.max(nextLink + 1, link.runEnd - 2), count);
        continue;
      }
    } else {
      const auto = autolinkAt(line, nextAuto, count);
      if (auto.ok) {
        targets.push(line.slice(nextAuto + 1, auto.end - 1));
        resume = auto.end;
      } else {
        nextAuto = find(line, '<', auto.end, count);
        continue;
      }
    }
    nextLink = find(line, '](', resume, count);
    nextAuto = find(line, '<', resume, count);
  }
  return targets;
}
