/**
 * Plain lists of bookmarks: one URL per line (optionally followed by a title; blank lines and lines
 * starting with "#" are skipped), or a CSV file (RFC 4180: quoted fields, doubled quotes, line breaks
 * inside quotes) whose header names a URL column ("url", "href", "link", "address", "uri"), with
 * optional title ("title", "name"), folder ("folder", "path") and labels ("labels", "tags", split on
 * ",", ";" or "|") columns, as Pocket, Raindrop and spreadsheets write them. Pure, and linear in the
 * text's length: each character is looked at once (counted in ReadOptions.counter), and reading stops
 * one record past ReadOptions.maxEntries.
 */
import { ChunkedString } from '../../crawler/extract/chunked-string.ts';
import { type BookmarkEntry, capFolderName, MAX_FOLDER_DEPTH, type ReadOptions } from './bookmark-entry.ts';

const URL_COLUMNS = new Set(['url', 'href', 'link', 'address', 'uri']);
const TITLE_COLUMNS = new Set(['title', 'name']);
const FOLDER_COLUMNS = new Set(['folder', 'path']);
const LABEL_COLUMNS = new Set(['labels', 'tags', 'label', 'tag']);

/** One CSV record: its fields and the line it starts on. */
interface CsvRecord {
  line: number;
  fields: string[];
}

/** A step counter that also counts the string pieces CSV fields are built from (tests bound both). */
export interface CsvCounter {
  steps: number;
  pieces?: number;
}

/**
 * Fields kept of one CSV record; the rest are read past. A bookmark export has a handful of columns,
 * and a record of 256,000 empty fields made one array too large for V8's regular heap pages (its
 * large-object space costs about ten times as much per element: "many empty fields" grew 44x per 8x).
 */
export const MAX_CSV_FIELDS = 1000;

const QUOTE = 0x22;

/**
 * text[from, to) with each doubled quote made one, built in chunks (ChunkedString): `replaceAll` over
 * a field of 4 million doubled quotes held one piece per quote in one array (29.9 ns per character at
 * 128 Ki, 98 at 8 Mi).
 */
function undoubled(text: string, from: number, to: number): string {
  const out = new ChunkedString();
  let copied = from;
  for (let q = text.indexOf('""', from); q !== -1 && q + 1 < to; q = text.indexOf('""', q + 2)) {
    out.push(text.slice(copied, q + 1));
    copied = q + 2;
  }
  out.push(text.slice(copied, to));
  return out.join();
}
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits CSV text into records (RFC 4180, also accepting bare LF line ends); stops once it has
 * `maxRecords`; a record keeps its first MAX_CSV_FIELDS fields. Each field is cut from the text by `slice` at its boundaries (a quoted run in one
 * piece, its doubled quotes undoubled by one `replaceAll`), never grown a character at a time: `field += c` held a chain of one node per
 * character, which the garbage collector copied again and again (a 256 KB field grew 13-18x per 8x).
 */
export function parseCsv(text: string, maxRecords = Number.POSITIVE_INFINITY, counter?: CsvCounter): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let parts: string[] = []; // the current field's pieces so far
  let pieces = 0;
  let quoted = false;
  let line = 1;
  let start = 1;
  let any = false;
  let run = 0; // text[run, i) belongs to the current field and is not in parts yet
  let doubled = false; // text[run, i) is quoted and holds a doubled quote
  const add = (to: number): void => {
    if (to > run) {
      parts.push(doubled ? undoubled(text, run, to) : text.slice(run, to));
      pieces++;
    }
    doubled = false;
  };
  const take = (): string => {
    const field = parts.length === 0 ? '' : parts.length === 1 ? parts[0] : parts.join('');
    parts = [];
    return field;
  };
  let i = 0;
  for (; i < text.length && records.length < maxRecords; i++) {
    const c = text.charCodeAt(i);
    if (quoted) {
      if (c === QUOTE) {
        if (text.charCodeAt(i + 1) === QUOTE) {
          doubled = true; // undoubled when the quoted run is cut
          i++;
        } else {
          add(i);
          quoted = false;
          run = i + 1;
        }
      } else if (c === LF) line++;
      continue;
    }
    if (c === QUOTE && i === run && parts.length === 0) {
      quoted = true;
      any = true;
      run = i + 1;
    } else if (c === COMMA) {
      add(i);
      const field = take();
      if (fields.length < MAX_CSV_FIELDS) fields.push(field);
      any = true;
      run = i + 1;
    } else if (c === LF || c === CR) {
      add(i);
      if (c === CR && text.charCodeAt(i + 1) === LF) i++;
      const field = take();
      if (fields.length < MAX_CSV_FIELDS) fields.push(field);
      if (any || field !== '') records.push({ line: start, fields });
      fields = [];
      any = false;
      line++;
      start = line;
      run = i + 1;
    } else {
      any = true;
    }
  }
  if (counter !== undefined) {
    counter.steps += i;
    if (counter.pieces !== undefined) counter.pieces += pieces;
  }
  if (records.length >= maxRecords) return records;
  add(text.length);
  const field = take();
  if (fields.length < MAX_CSV_FIELDS) fields.push(field);
  if (any || field !== '') records.push({ line: start, fields });
  return records;
}

/** The column indexes of a CSV header, or undefined when it names no URL column. */
function csvColumns(header: string[]): { url: number; title: number; folder: number; labels: number } | undefined {
  const names = header.map((h) =>
    h
      .trim()
      .toLowerCase()
      .replace(/^\ufeff/, ''),
  );
  const find = (set: Set<string>) => names.findIndex((n) => set.has(n));
  const url = find(URL_COLUMNS);
  if (url === -1) return undefined;
  return { url, title: find(TITLE_COLUMNS), folder: find(FOLDER_COLUMNS), labels: find(LABEL_COLUMNS) };
}

/** True when the first non-blank line of `text` is a CSV header naming a URL column. */
export function looksLikeCsv(text: string): boolean {
  const first = /^[^\S\n]*(\S[^\n]*)/m.exec(text.slice(0, 4096));
  if (first === null || !first[1].includes(',')) return false;
  return csvColumns(parseCsv(first[1])[0]?.fields ?? []) !== undefined;
}

/**
 * The bookmarks of a CSV file with a header (see the file comment); rows without a URL field are kept,
 * to be refused as missing. A folder path keeps its first MAX_FOLDER_DEPTH names, each cut to
 * MAX_FOLDER_NAME_CHARS.
 */
export function parseCsvBookmarks(text: string, options: ReadOptions = {}): BookmarkEntry[] {
  const records = parseCsv(text, (options.maxEntries ?? Number.POSITIVE_INFINITY) + 2, options.counter);
  const columns = csvColumns(records[0]?.fields ?? []);
  if (columns === undefined) return [];
  const at = (r: CsvRecord, i: number): string => (i === -1 ? '' : (r.fields[i] ?? '').trim());
  return records.slice(1).map((r) => {
    const folder = at(r, columns.folder)
      .split('/')
      .map((f) => f.trim())
      .filter((f) => f !== '')
      .slice(0, MAX_FOLDER_DEPTH)
      .map(capFolderName);
    const labels = at(r, columns.labels)
      .split(/[,;|]/)
      .map((t) => t.trim())
      .filter((t) => t !== '');
    return {
      line: r.line,
      url: at(r, columns.url),
      title: at(r, columns.title),
      folder,
      labelNames: [...folder, ...labels],
    };
  });
}

/** The bookmarks of a plain list: one URL per line, anything after the first space its title (see ReadOptions for a limit). */
export function parseUrlLines(text: string, options: ReadOptions = {}): BookmarkEntry[] {
  const { maxEntries = Number.POSITIVE_INFINITY, counter } = options;
  const out: BookmarkEntry[] = [];
  let start = 0;
  for (let index = 0; start <= text.length && out.length <= maxEntries; index++) {
    let end = start;
    while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
    const line = text
      .slice(start, end)
      .replace(/^\ufeff/, '')
      .trim();
    if (counter !== undefined) counter.steps += end - start + 1;
    start = end + (text[end] === '\r' && text[end + 1] === '\n' ? 2 : 1);
    if (line === '' || line.startsWith('#')) continue;
    const space = line.search(/\s/);
    const url = space === -1 ? line : line.slice(0, space);
    const title = space === -1 ? '' : line.slice(space).trim();
    out.push({ line: index + 1, url, title, folder: [], labelNames: [] });
  }
  return out;
}
