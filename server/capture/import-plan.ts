/**
 * Turns an import file into the seeds to store and the lines refused: the format is recognized
 * (Netscape bookmark HTML, CSV with a URL column, or one URL per line), each URL is judged by the same
 * rules and reason codes as `POST /api/seeds` (crawler/common/url.ts: a `javascript:`, `place:` or
 * `data:` bookmark is `unsupported-scheme`), and bookmarks of one URL merge into one seed (their labels
 * joined, the first title and folder kept). What a file can make Lantern store is capped here and in the
 * readers: titles (MAX_TITLE_CHARS), folder paths (MAX_FOLDER_DEPTH names of MAX_FOLDER_NAME_CHARS,
 * MAX_FOLDER_PATH_CHARS in all), labels (MAX_LABELS_PER_SEED of MAX_LABEL_CHARS). Pure.
 */
import { checkUrl, type UrlRefusalCode } from '../../crawler/common/url.ts';
import { MAX_LABELS_PER_SEED, type ImportedSeed } from '../../db/seed-labels.ts';
import {
  type BookmarkEntry,
  type ImportFormat,
  MAX_FOLDER_PATH_CHARS,
  type ReadOptions,
  type StepCounter,
} from './bookmark-entry.ts';
import { looksLikeBookmarkHtml, parseBookmarkHtml } from './bookmark-html.ts';
import { toLabels } from './label.ts';
import { looksLikeCsv, parseCsvBookmarks, parseUrlLines } from './url-list.ts';

/** Most bookmarks one import reads; a larger file is refused whole (split it), found out while reading it. */
export const MAX_IMPORT_ENTRIES = 50_000;
/** Longest title kept (characters). */
export const MAX_TITLE_CHARS = 300;

/** A bookmark that did not become a seed, and why (the codes of POST /api/seeds). */
export interface ImportRefusal {
  line: number;
  url: string;
  title: string;
  error: UrlRefusalCode;
  message: string;
}

/** What an import file holds, judged. */
export interface ImportPlan {
  format: ImportFormat;
  /** Bookmarks read from the file (reading stops one past the limit). */
  entries: number;
  /** The file holds more bookmarks than the limit (nothing was judged: the import is refused). */
  more: boolean;
  /** One per distinct URL accepted, in file order. */
  seeds: ImportedSeed[];
  /** Bookmarks whose URL was already taken by an earlier line of the file (merged into it). */
  duplicates: number;
  refused: ImportRefusal[];
}

/** The format of an import file, by its content (the characters looked at added to `counter`). */
export function detectFormat(text: string, counter?: StepCounter): ImportFormat {
  if (looksLikeBookmarkHtml(text, counter)) return 'netscape';
  if (looksLikeCsv(text)) return 'csv';
  return 'lines';
}

/** The bookmarks of a file in a known format (see ReadOptions: a limit, a step counter). */
export function readEntries(text: string, format: ImportFormat, options: ReadOptions = {}): BookmarkEntry[] {
  if (format === 'netscape') return parseBookmarkHtml(text, options);
  if (format === 'csv') return parseCsvBookmarks(text, options);
  return parseUrlLines(text, options);
}

/** The first `max` characters (whole code points) of `text`, without reading the rest of it. */
function cut(text: string, max: number): string {
  return text.length <= max
    ? text
    : Array.from(text.slice(0, max * 2))
        .slice(0, max)
        .join('');
}

/** A folder path as stored: its names joined by " / ", cut to MAX_FOLDER_PATH_CHARS. */
export function folderPath(folder: readonly string[]): string | null {
  return folder.length === 0 ? null : cut(folder.join(' / '), MAX_FOLDER_PATH_CHARS);
}

/**
 * Judges every bookmark of `text`. `extraLabels` (already folded) go on every seed of the import.
 * Reading stops past `maxEntries` (MAX_IMPORT_ENTRIES): too many bookmarks is the caller's error to
 * report (`more`: nothing is judged).
 */
export function planImport(
  text: string,
  opts: { allowPrivate: boolean; extraLabels?: readonly string[]; maxEntries?: number; counter?: StepCounter },
): ImportPlan {
  const maxEntries = opts.maxEntries ?? MAX_IMPORT_ENTRIES;
  const format = detectFormat(text, opts.counter);
  const entries = readEntries(text, format, { maxEntries, counter: opts.counter });
  const more = entries.length > maxEntries;
  const plan: ImportPlan = { format, entries: entries.length, more, seeds: [], duplicates: 0, refused: [] };
  if (more) return plan;
  const byUrl = new Map<string, ImportedSeed>();
  for (const e of entries) {
    const checked = checkUrl(e.url, { allowPrivate: opts.allowPrivate });
    const title = cut(e.title, MAX_TITLE_CHARS);
    if (!checked.ok) {
      plan.refused.push({
        line: e.line,
        url: e.url.slice(0, 300),
        title,
        error: checked.code,
        message: checked.message,
      });
      continue;
    }
    const labels = toLabels([...e.labelNames, ...(opts.extraLabels ?? [])], MAX_LABELS_PER_SEED);
    const seen = byUrl.get(checked.url);
    if (seen !== undefined) {
      plan.duplicates++;
      seen.labels = [...seen.labels, ...labels.filter((l) => !seen.labels.includes(l))].slice(0, MAX_LABELS_PER_SEED);
      if (seen.title === null && title !== '') seen.title = title;
      continue;
    }
    const seed: ImportedSeed = {
      url: checked.url,
      origin: checked.origin,
      title: title === '' ? null : title,
      folder: folderPath(e.folder),
      labels,
    };
    byUrl.set(checked.url, seed);
    plan.seeds.push(seed);
  }
  return plan;
}
