/**
 * What the title index (title-index.ts) makes of a page: its MiniSearch document (title, the first
 * headings, URL words), the tokenizer and term folding used for documents and queries alike, the
 * MiniSearch options, and the fingerprint a snapshot of the index must carry (title-snapshot.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import MiniSearch from 'minisearch';
import type { Options } from 'minisearch';
import { getPublicSuffix } from 'tldts';
import type { PageChange } from '../../db/pages.ts';
import { foldCase } from '../../shared/identifiers.ts';
import { FIELDS, TITLE_BOOST } from './term-search.ts';
import type { TitleDoc } from './term-search.ts';

/** Headings are capped (the first ones, h1-h3 in page order): memory is per distinct word. */
const MAX_HEADINGS = 8;
const MAX_HEADING_CHARS = 300;
const MAX_TERM_CHARS = 40;
const URL_NOISE = new Set(['http', 'https', 'www', 'html', 'htm', 'php', 'aspx', 'index', 'com', 'org', 'net']);

export const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** Folds a term; drops empty and overlong ones (identically at index and query time). */
export function processTerm(term: string): string | null {
  const t = foldCase(term);
  return t.length === 0 || t.length > MAX_TERM_CHARS ? null : t;
}

/**
 * The words of a URL worth matching: host labels below the public suffix ("docs example" for
 * docs.example.co.uk) and path segments, without scheme, www, file types or numbers. The suffix
 * would be a word of nearly every page (a huge posting list for nothing).
 */
export function urlWords(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '';
  }
  const suffix = getPublicSuffix(u.hostname);
  const host =
    suffix !== null && suffix !== u.hostname && u.hostname.endsWith(`.${suffix}`)
      ? u.hostname.slice(0, -suffix.length - 1)
      : u.hostname;
  const path = (() => {
    try {
      return decodeURIComponent(u.pathname);
    } catch {
      return u.pathname;
    }
  })();
  return `${host} ${path}`
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && !URL_NOISE.has(w.toLowerCase()) && !/^\d+$/.test(w))
    .join(' ');
}

/** The title-index entry of a page. */
export function toDoc(p: PageChange): TitleDoc {
  return {
    id: p.id,
    title: p.title,
    headings: p.headings.slice(0, MAX_HEADINGS).join('\n').slice(0, MAX_HEADING_CHARS),
    url: urlWords(p.url),
  };
}

/** The MiniSearch options of the title index (the same for a build and a restore). */
export const OPTIONS: Options<TitleDoc> = {
  fields: [...FIELDS],
  storeFields: [],
  processTerm,
  searchOptions: { boost: { ...TITLE_BOOST }, processTerm },
};

/** Bumped when what the index holds changes in a way the fingerprint below cannot see. */
const TITLE_INDEX_VERSION = 1;
let fingerprintCache: string | undefined;

/**
 * What a snapshot must have been built with: this version, the fields and caps, the source of the
 * functions that turn a page into terms (so editing them retires old snapshots), and MiniSearch's
 * version (its tokenizer and internals).
 */
export function indexFingerprint(): string {
  if (fingerprintCache !== undefined) return fingerprintCache;
  const entry = createRequire(import.meta.url).resolve('minisearch');
  const pkg = JSON.parse(readFileSync(path.join(path.dirname(entry), '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  const parts = [
    TITLE_INDEX_VERSION,
    FIELDS,
    MAX_HEADINGS,
    MAX_HEADING_CHARS,
    MAX_TERM_CHARS,
    [...URL_NOISE],
    pkg.version,
    String(tokenize),
    String(processTerm),
    String(urlWords),
    String(toDoc),
  ];
  fingerprintCache = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  return fingerprintCache;
}
