/**
 * Turns an import file into the seeds to store and the lines refused: the format is recognized
 * (Netscape bookmark HTML, CSV with a URL column, or one URL per line), each URL is judged by the same
 * rules and reason codes as `POST /api/seeds` (crawler/frontier/url.ts: a `javascript:`, `place:` or
 * `data:` bookmark is `unsupported-scheme`), and bookmarks of one URL merge into one seed (their labels
 * joined, the first title and folder kept). Pure.
 */
import { checkUrl, type UrlRefusalCode } from '../../crawler/frontier/url.ts';
import { MAX_LABELS_PER_SEED, type ImportedSeed } from '../../db/seed-labels.ts';
import type { BookmarkEntry, ImportFormat } from './bookmark-entry.ts';
import { looksLikeBookmarkHtml, parseBookmarkHtml } from './bookmark-html.ts';
import { toLabels } from './label.ts';
import { looksLikeCsv, parseCsvBookmarks, parseUrlLines } from './url-list.ts';

/** Most bookmarks one import reads; a larger file is refused whole (split it). */
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
  /** Bookmarks read from the file. */
  entries: number;
  /** One per distinct URL accepted, in file order. */
  seeds: ImportedSeed[];
  /** Bookmarks whose URL was already taken by an earlier line of the file (merged into it). */
  duplicates: number;
  refused: ImportRefusal[];
}

/** The format of an import file, by its content. */
export function detectFormat(text: string): ImportFormat {
  if (looksLikeBookmarkHtml(text)) return 'netscape';
  if (looksLikeCsv(text)) return 'csv';
  return 'lines';
}

/** The bookmarks of a file in a known format. */
export function readEntries(text: string, format: ImportFormat): BookmarkEntry[] {
  if (format === 'netscape') return parseBookmarkHtml(text);
  if (format === 'csv') return parseCsvBookmarks(text);
  return parseUrlLines(text);
}

/**
 * Judges every bookmark of `text`. `extraLabels` (already folded) go on every seed of the import.
 * Too many bookmarks is the caller's error to report (`entries` > MAX_IMPORT_ENTRIES: nothing is judged).
 */
export function planImport(text: string, opts: { allowPrivate: boolean; extraLabels?: readonly string[] }): ImportPlan {
  const format = detectFormat(text);
  const entries = readEntries(text, format);
  const plan: ImportPlan = { format, entries: entries.length, seeds: [], duplicates: 0, refused: [] };
  if (entries.length > MAX_IMPORT_ENTRIES) return plan;
  const byUrl = new Map<string, ImportedSeed>();
  for (const e of entries) {
    const checked = checkUrl(e.url, { allowPrivate: opts.allowPrivate });
    const title = Array.from(e.title).slice(0, MAX_TITLE_CHARS).join('');
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
    const labels = toLabels([...e.labelNames, ...(opts.extraLabels ?? [])]);
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
      folder: e.folder.length === 0 ? null : e.folder.join(' / '),
      labels: labels.slice(0, MAX_LABELS_PER_SEED),
    };
    byUrl.set(checked.url, seed);
    plan.seeds.push(seed);
  }
  return plan;
}
