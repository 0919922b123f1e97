// The page the bookmarklet hands the add form (`/seeds?add=URL&title=T`), made safe to show. Pure.
//
// Both values come from the address, which any page can write: they never pass through the server's bidi
// guard (server/plugins/bidi-guard.ts), which cleans JSON answers only. A title such as `Wiki\u202Efdp.exe`
// (RIGHT-TO-LEFT OVERRIDE before "fdp.exe") would read "Wikiexe.pdf" and reverse the rest of the sentence
// around it; a URL could hide what it points at the same way. So every control character is removed here:
// C0 and C1 controls and DEL, the direction marks (U+200E LRM, U+200F RLM, U+061C ALM), the embeddings and
// overrides (U+202A–U+202E) and the isolates (U+2066–U+2069). In a title, line breaks and tabs become one
// space (a title is one line); the form also shows it inside `<bdi>`, so right-to-left text stays in place.

/** At most this many characters of a prefilled title: what the server keeps of a seed's title (MAX_TITLE_CHARS). */
export const PREFILL_TITLE_MAX_CHARS = 300;

/** A page to add, as the add form shows and sends it. */
export interface Prefill {
  url: string;
  title: string;
}

/** Control characters that count as a space in a title: tab, line feed, vertical tab, form feed, carriage return, NEL. */
function isSpaceControl(code: number): boolean {
  return (code >= 0x09 && code <= 0x0d) || code === 0x85;
}

/** True for the characters this module removes (see the module comment). */
function isControl(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/**
 * `text` without control characters; those that are whitespace become `space` ('' drops them too). One pass
 * over the code points, no regex: linear in the text, whatever it holds.
 */
export function withoutControls(text: string, space = ''): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (!isControl(code)) out += char;
    else if (isSpaceControl(code)) out += space;
  }
  return out;
}

/**
 * The URL and title a bookmarklet (or any page) put in the address, ready to show and send: no control or
 * bidi characters, the URL trimmed, the title on one line with its spaces collapsed, trimmed and cut at
 * PREFILL_TITLE_MAX_CHARS characters (code points, so no character is split in half).
 */
export function cleanPrefill(url: string, title: string): Prefill {
  const oneLine = withoutControls(title, ' ').replace(/\s+/g, ' ').trim();
  const chars = Array.from(oneLine);
  return {
    url: withoutControls(url).trim(),
    title: chars.length > PREFILL_TITLE_MAX_CHARS ? chars.slice(0, PREFILL_TITLE_MAX_CHARS).join('').trim() : oneLine,
  };
}
