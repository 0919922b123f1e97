/**
 * The query language a person types, parsed into parts. Pure, and total: any string parses (hostile
 * input included); what cannot be searched is dropped, and the caller decides what an empty result
 * means. Nothing typed here ever reaches FTS5 as syntax: fts-expression.ts quotes every word.
 *
 * - words are ANDed (the service falls back to OR when AND finds nothing);
 * - "quoted phrases" (an unclosed quote runs to the end of the query);
 * - -word and -"phrase" exclude; -site:host excludes a host;
 * - site:host keeps only that host and its subdomains (site:host:port only that port); several OR;
 * - the last word is a prefix ("prog" finds "programming") unless the query ends in a space;
 *   word* asks for a prefix explicitly (3+ letters either way);
 * - AND, OR, NOT, NEAR(, *, ^, : and other FTS5 syntax are ordinary characters (or dropped);
 * - label:NAME and filetype:pdf narrow to a label's seeds or a kind of document (capture-operators.ts).
 */
import { asIdentifier, foldCase } from '../../shared/identifiers.ts';
import { captureOperator, MAX_CAPTURE_FILTERS, type FileTypeName } from './capture-operators.ts';

/** Queries are cut to this many characters before parsing (the API documents it). */
export const MAX_QUERY_CHARS = 1000;
/** At most this many searchable items (words + phrases) are kept; the rest are ignored. */
export const MAX_ITEMS = 32;
/** At most this many excluded items and site filters. */
export const MAX_EXCLUDED = 16;
export const MAX_SITES = 8;
/** Longest word kept (longer words are cut: no page has such a token worth matching anyway). */
export const MAX_WORD_CHARS = 100;
/** Shortest word matched as a prefix (automatic or word*): shorter prefixes expand to too many terms. */
export const MIN_AUTO_PREFIX_CHARS = 3;

/** A single word to match. */
export interface TermItem {
  kind: 'term';
  /** As typed, outer punctuation trimmed (still mixed case). */
  text: string;
  /** Folded (lower case, no diacritics): for comparisons and the title index. */
  folded: string;
  /** Match words starting with it. */
  prefix: boolean;
  /** The folded identifier form when the word is one (capture_output, git-rebase), else undefined. */
  ident: string | undefined;
}

/** Several words that must appear together, in order. */
export interface PhraseItem {
  kind: 'phrase';
  words: string[];
}

export type QueryItem = TermItem | PhraseItem;

/** A host filter: `name` lower-cased without port, `port` when given. */
export interface SiteFilter {
  name: string;
  port: number | undefined;
}

/** What a query asks for. `items` is empty when nothing searchable was typed. */
export interface ParsedQuery {
  /** The query text actually used (trimmed, cut to MAX_QUERY_CHARS). */
  text: string;
  truncated: boolean;
  items: QueryItem[];
  excluded: QueryItem[];
  sites: SiteFilter[];
  excludedSites: SiteFilter[];
  /** label:NAME filters (folded labels; several OR). */
  labels?: string[];
  /** filetype: filters (several OR). */
  fileTypes?: FileTypeName[];
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
/** A character FTS5's unicode61 tokenizer keeps in a token (letters, digits) or the underscore. */
const TOKEN_CHAR = /[\p{L}\p{N}_]/u;
const ONLY_TOKEN_CHAR = /^[\p{L}\p{N}_]$/u;

/** True when FTS5's unicode61 tokenizer would find at least one token in `text`. */
export function hasWordChar(text: string): boolean {
  return WORD_CHAR.test(text);
}

/** Parses a site: value (a host, host:port, or a pasted URL) into a filter, or undefined if it is not one. */
export function parseSite(value: string): SiteFilter | undefined {
  let v = value.trim().toLowerCase();
  if (v === '') return undefined;
  if (!/^[a-z][a-z0-9+.-]*:\/\//.test(v)) v = `http://${v}`;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return undefined;
  }
  const name = url.hostname.replace(/\.$/, '');
  if (name === '' || !/^[a-z0-9.\-[\]:_]+$/.test(name)) return undefined;
  const port = url.port === '' ? undefined : Number(url.port);
  return { name, port };
}

/** Splits raw text into tokens: bare runs and quoted runs, remembering a leading "-" or "+". */
function tokenize(text: string): Array<{ sign: '' | '-' | '+'; quoted: boolean; value: string; last: boolean }> {
  const out: Array<{ sign: '' | '-' | '+'; quoted: boolean; value: string; last: boolean }> = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && /\s/.test(text[i])) i++;
    if (i >= n) break;
    let sign: '' | '-' | '+' = '';
    if ((text[i] === '-' || text[i] === '+') && i + 1 < n && text[i + 1] === '"') {
      sign = text[i] as '-' | '+';
      i++;
    }
    if (text[i] === '"') {
      const close = text.indexOf('"', i + 1);
      const end = close === -1 ? n : close;
      out.push({ sign, quoted: true, value: text.slice(i + 1, end), last: end >= n - 1 });
      i = end + 1;
      continue;
    }
    const start = i;
    while (i < n && !/\s/.test(text[i]) && text[i] !== '"') i++;
    let value = text.slice(start, i);
    if (value.length > 1 && (value[0] === '-' || value[0] === '+')) {
      sign = value[0] as '-' | '+';
      value = value.slice(1);
    }
    out.push({ sign, quoted: false, value, last: i >= n });
  }
  return out;
}

/**
 * `raw` without the characters before its first and after its last letter, digit or underscore. A
 * scan from each end, each character looked at once (the regex it replaces, `[^\p{L}\p{N}_]+$`,
 * rescanned a run of punctuation from every character of it: quadratic in the run).
 */
export function trimOuter(raw: string): string {
  const start = raw.search(TOKEN_CHAR);
  if (start === -1) return '';
  let end = raw.length;
  for (;;) {
    let from = end - 1;
    const c = raw.charCodeAt(from);
    if (c >= 0xdc00 && c <= 0xdfff && from > start) {
      const high = raw.charCodeAt(from - 1);
      if (high >= 0xd800 && high <= 0xdbff) from--; // the whole astral character
    }
    if (ONLY_TOKEN_CHAR.test(raw.slice(from, end))) return raw.slice(start, end);
    end = from;
  }
}

/** How many `*` end `value` (counted from the end, so a run of them costs its length once). */
export function trailingStars(value: string): number {
  let n = 0;
  while (n < value.length && value.charCodeAt(value.length - 1 - n) === 0x2a) n++;
  return n;
}

function termItem(raw: string, prefix: boolean): TermItem | undefined {
  const text = trimOuter(raw).slice(0, MAX_WORD_CHARS);
  if (!hasWordChar(text)) return undefined;
  return { kind: 'term', text, folded: foldCase(text), prefix, ident: asIdentifier(text) };
}

function phraseItem(raw: string): QueryItem | undefined {
  const words = raw
    .split(/\s+/)
    .map((w) => w.slice(0, MAX_WORD_CHARS))
    .filter(hasWordChar);
  if (words.length === 0) return undefined;
  if (words.length === 1) return termItem(words[0], false);
  return { kind: 'phrase', words };
}

/** Parses a person's query text. Never throws. */
export function parseQuery(input: string): ParsedQuery {
  const raw = typeof input === 'string' ? input : '';
  // Control characters become spaces: NUL would end an FTS5 string early, the others mean nothing here.
  const cut = (raw.length > MAX_QUERY_CHARS ? raw.slice(0, MAX_QUERY_CHARS) : raw).replace(
    /[\u0000-\u001f\u007f]/g,
    ' ',
  );
  const text = cut.trim();
  const truncated = raw.length > MAX_QUERY_CHARS;
  // No automatic prefix after a trailing space (the word is finished) or on a word cut in half.
  const noAutoPrefix = /\s$/.test(cut) || truncated;
  const parsed: ParsedQuery = { text, truncated, items: [], excluded: [], sites: [], excludedSites: [] };

  const tokens = tokenize(text);
  tokens.forEach((tok, index) => {
    const isLast = index === tokens.length - 1;
    if (tok.quoted) {
      const item = phraseItem(tok.value);
      if (item === undefined) return;
      if (tok.sign === '-') {
        if (parsed.excluded.length < MAX_EXCLUDED) parsed.excluded.push(item);
      } else if (parsed.items.length < MAX_ITEMS) parsed.items.push(item);
      return;
    }
    const capture = tok.sign === '-' ? undefined : captureOperator(tok.value);
    if (capture !== undefined) {
      if (
        capture?.kind === 'label' &&
        (parsed.labels ??= []).length < MAX_CAPTURE_FILTERS &&
        !parsed.labels.includes(capture.label)
      )
        parsed.labels.push(capture.label);
      if (
        capture?.kind === 'filetype' &&
        (parsed.fileTypes ??= []).length < MAX_CAPTURE_FILTERS &&
        !parsed.fileTypes.includes(capture.fileType)
      )
        parsed.fileTypes.push(capture.fileType);
      return;
    }
    const lower = tok.value.toLowerCase();
    if (lower.startsWith('site:')) {
      const site = parseSite(tok.value.slice(5));
      if (site === undefined) return;
      const list = tok.sign === '-' ? parsed.excludedSites : parsed.sites;
      if (list.length < MAX_SITES && !list.some((s) => s.name === site.name && s.port === site.port)) list.push(site);
      return;
    }
    const stars = trailingStars(tok.value);
    const explicitPrefix = stars > 0;
    const word = tok.value.slice(0, tok.value.length - stars);
    const item = termItem(word, false);
    if (item === undefined) return;
    const autoPrefix =
      isLast && tok.last && !noAutoPrefix && tok.sign !== '-' && item.text.length >= MIN_AUTO_PREFIX_CHARS;
    item.prefix = (explicitPrefix || autoPrefix) && item.text.length >= MIN_AUTO_PREFIX_CHARS;
    if (tok.sign === '-') {
      item.prefix = false;
      if (parsed.excluded.length < MAX_EXCLUDED) parsed.excluded.push(item);
    } else if (parsed.items.length < MAX_ITEMS) parsed.items.push(item);
  });
  return parsed;
}

/** The words of the searchable items, in order (phrase words included), as the title index reads them. */
export function itemWords(items: readonly QueryItem[]): string[] {
  return items.flatMap((it) => (it.kind === 'term' ? [it.text] : it.words));
}
