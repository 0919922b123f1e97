/**
 * The few pieces of HTML reading a bookmark file needs, as hand-written scans that look at each
 * character a bounded number of times: no regular expression here runs over text of unbounded shape,
 * because a backtracking one (`<a\s[^>]*href`, an attribute pattern over a long run of name
 * characters) took seconds on a 160 KB hostile file. Each scan adds the characters it looked at to a
 * StepCounter, so tests hold it to a budget proportional to the input. Pure.
 */
import { decodeHTML } from 'entities';
import type { StepCounter } from './bookmark-entry.ts';

/** Whether `c` (one UTF-16 unit) is whitespace as a regular expression's `\s` sees it. */
export function isSpace(c: string): boolean {
  return (
    c === ' ' || c === '\n' || c === '\t' || c === '\r' || c === '\f' || c === '\v' || (c > '\u007f' && /\s/.test(c))
  );
}

/** Whether `c` is a letter, digit or "_" (a regular expression's `\w`, whose edge `\b` marks). */
function isWord(c: string | undefined): boolean {
  if (c === undefined) return false;
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_';
}

function isNameStart(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === ':';
}

function isNameChar(c: string): boolean {
  return isNameStart(c) || (c >= '0' && c <= '9') || c === '-' || c === '.';
}

/** Whether `text` has `word` (lower case) at `at`, in any case, followed by a non-word character. */
export function wordAt(text: string, at: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = text.charCodeAt(at + i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== word.charCodeAt(i)) return false;
  }
  return !isWord(text[at + word.length]);
}

/** `text.indexOf(what, from)`, counted: the characters it passed over are added to `counter`. */
export function find(text: string, what: string, from: number, counter?: StepCounter): number {
  const at = text.indexOf(what, from);
  if (counter !== undefined) counter.steps += (at === -1 ? text.length : at + what.length) - from;
  return at;
}

/** The end of the run of characters from `from` on that `keep` accepts. */
function runEnd(raw: string, from: number, keep: (c: string) => boolean): number {
  let j = from;
  while (j < raw.length && keep(raw[j])) j++;
  return j;
}

function isValueChar(c: string): boolean {
  return c !== '"' && c !== "'" && c !== '>' && !isSpace(c);
}

/**
 * The attributes of a tag's inside (`href="x" add_date=1 tags='a,b'`): names lower-cased, values
 * entity-decoded, only those named in `wanted` when it is given (a favicon's data URL is not decoded for
 * nothing); a name without "=" and a value whose quote never closes are skipped, as browsers' exports
 * never write them. Linear: a run of name characters is read once, whatever follows it.
 */
export function attributes(raw: string, counter?: StepCounter, wanted?: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  const n = raw.length;
  let looked = 0; // every character the loops below look at
  const keep = (name: string, from: number, to: number): void => {
    if (wanted === undefined || wanted.has(name)) out.set(name, decodeHTML(raw.slice(from, to)));
  };
  let i = 0;
  while (i < n) {
    looked++;
    if (!isNameStart(raw[i])) {
      i++;
      continue;
    }
    const start = i;
    i = runEnd(raw, i, isNameChar);
    const name = raw.slice(start, i).toLowerCase();
    let j = runEnd(raw, i, isSpace);
    looked += j - start;
    if (raw[j] !== '=') {
      i = j; // no suffix of this run can be a name followed by "=" either
      continue;
    }
    const valueAt = runEnd(raw, j + 1, isSpace);
    looked += valueAt - j;
    j = valueAt;
    const q = raw[j];
    if (q === '"' || q === "'") {
      const close = raw.indexOf(q, j + 1);
      looked += (close === -1 ? n : close) - j;
      if (close === -1) {
        i = j + 1;
        continue;
      }
      keep(name, j + 1, close);
      i = close + 1;
      continue;
    }
    j = runEnd(raw, j, isValueChar);
    looked += j - valueAt;
    if (j > valueAt) keep(name, valueAt, j);
    i = j;
  }
  if (counter !== undefined) counter.steps += looked;
  return out;
}

/** The readable text of an element's inside: tags dropped, entities decoded, spaces collapsed. */
export function innerText(html: string, counter?: StepCounter): string {
  let kept = '';
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      kept += html.slice(i);
      break;
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt === -1) {
      kept += html.slice(i); // no tag closes any more: the rest is text
      break;
    }
    kept += html.slice(i, lt);
    i = gt + 1;
  }
  if (counter !== undefined) counter.steps += html.length;
  let out = '';
  let space = false;
  for (const c of decodeHTML(kept)) {
    if (isSpace(c)) space = out !== '';
    else {
      if (space) out += ' ';
      out += c;
      space = false;
    }
  }
  return out;
}
