/**
 * What one crawled page may put on the results screen, at most: a title of RESULT_CAPS.titleChars, a
 * snippet of RESULT_CAPS.snippetChars (FTS5's snippet counts words, and one "word" can be 60,000
 * characters long), a suggestion of RESULT_CAPS.suggestionChars. Longer text is cut, at a space when
 * one is near, and ends with "…"; the browser wraps what is left anywhere (overflow-wrap), so no page
 * can widen or flood the screen. Pure.
 */
import type { SearchResponse, SnippetPiece, SuggestResponse } from './types.ts';

/** The caps, in characters (UTF-16 code units, never splitting a surrogate pair). */
export const RESULT_CAPS = { titleChars: 200, snippetChars: 320, suggestionChars: 120 } as const;

const ELLIPSIS = '…';

/** Where to cut `text` to keep at most `max` code units: not inside a surrogate pair. */
function cutAt(text: string, max: number): number {
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/** `text` cut to at most `max` characters with "…" at the end (at a space in the last fifth, if there is one). */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = cutAt(text, max - 1);
  const space = text.lastIndexOf(' ', end);
  if (space > end * 0.8) end = space;
  return `${text.slice(0, end).trimEnd()}${ELLIPSIS}`;
}

/** Snippet pieces cut to at most `max` characters in all (the piece that crosses it is cut, then "…"). */
export function capSnippet(pieces: readonly SnippetPiece[], max: number): SnippetPiece[] {
  const out: SnippetPiece[] = [];
  let left = max - 1; // room for the ellipsis
  for (const piece of pieces) {
    if (piece.text.length <= left) {
      out.push(piece);
      left -= piece.text.length;
      continue;
    }
    if (left > 0) out.push({ text: piece.text.slice(0, cutAt(piece.text, left)), match: piece.match });
    out.push({ text: ELLIPSIS, match: false });
    return out;
  }
  return pieces.length === out.length ? [...pieces] : out;
}

/** A search answer with every result's title and snippet within RESULT_CAPS. */
export function capSearchResponse(response: SearchResponse): SearchResponse {
  return {
    ...response,
    results: response.results.map((r) => ({
      ...r,
      title: capText(r.title, RESULT_CAPS.titleChars),
      snippet: capSnippet(r.snippet, RESULT_CAPS.snippetChars),
    })),
  };
}

/** A suggest answer with every suggestion within RESULT_CAPS.suggestionChars. */
export function capSuggestResponse(response: SuggestResponse): SuggestResponse {
  return {
    ...response,
    suggestions: response.suggestions.map((s) => ({ ...s, text: capText(s.text, RESULT_CAPS.suggestionChars) })),
  };
}
