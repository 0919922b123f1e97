/**
 * Page-level indexing directives: `<meta name="robots">`, `<meta name="<our token>">` and
 * `X-Robots-Tag` headers, combined into one answer for our crawler. (robots.txt is a different
 * thing, handled elsewhere.) Pure: no I/O.
 */

/** Combined indexing directives from meta robots tags and X-Robots-Tag headers. */
export interface RobotsDirectives {
  noindex: boolean;
  nofollow: boolean;
  /** `noarchive` (or Bing's `nocache`): searchable, but its stored text is not shown. */
  noarchive: boolean;
  /** `nosnippet`: searchable, but no text of it is shown in results. */
  nosnippet: boolean;
}

/** The raw directive values a page carried, as found by the extractor and in the response headers. */
export interface RobotsDirectiveInput {
  /** `content` values of `<meta name="robots">`. */
  metaRobots: string[];
  /** `content` values of `<meta name="<productToken>">` (name matched case-insensitively). */
  metaForToken: string[];
  /** Every `X-Robots-Tag` header value (one entry per header line). */
  headerValues: string[];
}

/**
 * Directives that take a value after a colon (`max-snippet: 20`, `unavailable_after: <date>`). A
 * header piece starting with one of these is a directive, not a `botname:` prefix.
 */
const VALUED_DIRECTIVES = new Set(['max-snippet', 'max-image-preview', 'max-video-preview', 'unavailable_after']);

/** A directive word: what lies between commas and whitespace. */
const WORD = /[^\s,]+/;

/** `max-snippet: 0` (any case and spacing): no text of the page may be shown, as `nosnippet`. */
const NO_SNIPPET_KEY = /(?:^|[\s,])max-snippet\s*:\s*/gi;

/**
 * Whether `text` says `max-snippet: 0`: the key found by a regex, its zeros counted by a scan (the
 * regex `0+(?![\d.])` it replaces backtracked through a long run of zeros before a `1`).
 */
function saysNoSnippet(text: string): boolean {
  const key = new RegExp(NO_SNIPPET_KEY.source, 'gi');
  for (let m = key.exec(text); m !== null; m = key.exec(text)) {
    const from = m.index + m[0].length;
    let i = from;
    while (text.charCodeAt(i) === 0x30) i++;
    const next = text.charCodeAt(i);
    if (i > from && !((next >= 0x30 && next <= 0x39) || next === 0x2e)) return true;
  }
  return false;
}

/** `botname: rest`, where botname is a single word with no spaces. */
const BOT_PREFIX = /^([^\s:,]+)\s*:\s*(.*)$/s;

/**
 * Parses values of `<meta name="robots"|"<ourtoken>">` content and X-Robots-Tag header values into
 * one answer (any source saying noindex/nofollow/noarchive/nosnippet wins). Words are comma-separated and
 * case-insensitive (whitespace also separates); `none` = noindex+nofollow; `all`/`index`/`follow` do nothing; unknown words are
 * ignored. A header value may be prefixed by a bot name (`googlebot: noindex`); the words after it
 * (up to the next bot prefix) then apply only if that name is our product token (case-insensitive).
 */
export function parseRobotsDirectives(input: RobotsDirectiveInput, productToken: string): RobotsDirectives {
  const result: RobotsDirectives = { noindex: false, nofollow: false, noarchive: false, nosnippet: false };
  const token = productToken.trim().toLowerCase();

  for (const content of input.metaRobots) applyWords(content, result);
  for (const content of input.metaForToken) applyWords(content, result);

  for (const value of input.headerValues) {
    let appliesToUs = true; // until a bot prefix says otherwise
    for (const rawPiece of value.split(',')) {
      let piece = rawPiece.trim();
      const prefixed = BOT_PREFIX.exec(piece);
      if (prefixed && !VALUED_DIRECTIVES.has(prefixed[1]!.toLowerCase())) {
        appliesToUs = prefixed[1]!.toLowerCase() === token;
        piece = prefixed[2]!;
      }
      if (appliesToUs) applyWords(piece, result);
    }
  }
  return result;
}

/**
 * Applies each directive word of `text` to `result`. Words are split on commas and also on whitespace,
 * so the common mistake `"noindex nofollow"` is honoured too; other words change nothing.
 */
function applyWords(text: string, result: RobotsDirectives): void {
  if (saysNoSnippet(text)) result.nosnippet = true; // max-snippet:0 means no snippet at all
  // One word at a time (not text.split: a long value would make one large array of words).
  const words = new RegExp(WORD.source, 'g');
  for (let m = words.exec(text); m !== null; m = words.exec(text)) {
    const word = m[0].toLowerCase();
    if (word === 'noindex') result.noindex = true;
    else if (word === 'nofollow') result.nofollow = true;
    else if (word === 'noarchive' || word === 'nocache') result.noarchive = true;
    else if (word === 'nosnippet') result.nosnippet = true;
    else if (word === 'none') {
      result.noindex = true;
      result.nofollow = true;
    }
  }
}
