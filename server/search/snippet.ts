/**
 * Snippets as data: a list of `{text, match}` pieces, never HTML. Pure. Either from an FTS5
 * snippet() string with marker characters around matched words, or, for pages found only through
 * the title index, built here from stored text around the first matched word.
 */
import { foldCase } from '../../shared/identifiers.ts';
import type { SnippetPiece } from './types.ts';

/** Turns a string with `start`/`end` markers around matches into pieces (stray markers are dropped). */
export function piecesFromMarked(marked: string, start = '\u0001', end = '\u0002'): SnippetPiece[] {
  const pieces: SnippetPiece[] = [];
  let match = false;
  let text = '';
  const flush = (): void => {
    if (text === '') return;
    const prev = pieces[pieces.length - 1];
    if (prev !== undefined && prev.match === match) prev.text += text;
    else pieces.push({ text, match });
    text = '';
  };
  for (const ch of marked) {
    if (ch === start || ch === end) {
      flush();
      match = ch === start;
    } else {
      text += ch;
    }
  }
  flush();
  return pieces;
}

const WORD = /[\p{L}\p{N}_]+/gu;

/** True when the folded token matches one of the folded query words (a prefix match for words of 3+ letters). */
function matches(token: string, words: readonly string[]): boolean {
  const t = foldCase(token);
  return words.some((w) => t === w || (w.length >= 3 && t.startsWith(w)));
}

/**
 * A snippet of about `maxChars` characters from `text`, starting a little before the first word that
 * matches one of `words` (folded), with every matching word marked. Starts at the beginning of the
 * text when nothing matches.
 */
export function makeSnippet(text: string, words: readonly string[], maxChars = 200): SnippetPiece[] {
  const folded = words.map(foldCase).filter((w) => w.length > 0);
  const clean = text.replace(/\s+/g, ' ').trim();
  let first = -1;
  for (const m of clean.matchAll(WORD)) {
    if (matches(m[0], folded)) {
      first = m.index;
      break;
    }
  }
  let from = first <= 0 ? 0 : Math.max(0, first - Math.floor(maxChars / 4));
  if (from > 0) {
    const space = clean.indexOf(' ', from);
    from = space === -1 || space > first ? from : space + 1;
  }
  let to = Math.min(clean.length, from + maxChars);
  if (to < clean.length) {
    const space = clean.lastIndexOf(' ', to);
    if (space > from) to = space;
  }
  const window = clean.slice(from, to);
  const pieces: SnippetPiece[] = [];
  const push = (t: string, match: boolean): void => {
    if (t === '') return;
    const prev = pieces[pieces.length - 1];
    if (prev !== undefined && prev.match === match) prev.text += t;
    else pieces.push({ text: t, match });
  };
  if (from > 0) push('…', false);
  let last = 0;
  for (const m of window.matchAll(WORD)) {
    if (!matches(m[0], folded)) continue;
    push(window.slice(last, m.index), false);
    push(m[0], true);
    last = m.index + m[0].length;
  }
  push(window.slice(last), false);
  if (to < clean.length) push('…', false);
  return pieces;
}

/** Text without heading permalink marks ("¶"), which pages stored before extraction left them out may still hold. */
export function withoutPermalinks(text: string): string {
  return text.replace(/[ \t]*¶/g, '');
}

/** Snippet pieces without permalink marks (see withoutPermalinks), empty pieces dropped. */
export function withoutPermalinkPieces(pieces: readonly SnippetPiece[]): SnippetPiece[] {
  return pieces.map((p) => ({ text: withoutPermalinks(p.text), match: p.match })).filter((p) => p.text !== '');
}
