/**
 * Generated test sites: a connected set of small, deterministic HTML pages for crawl and search
 * tests that need more pages than are worth writing by hand.
 */
import type { PageSpec, SiteSpec } from './test-web.ts';

/** Options of `generateSite`. */
export interface GenerateSiteOptions {
  /** Total number of pages, counting '/'. Pages are '/', '/p/1', ..., '/p/<pages-1>'. */
  pages: number;
  /** Extra links on every page besides the tree links; the first always goes to the next page (default 2). */
  linksPerPage?: number;
  /** Extra text placed in page i (e.g. words a search test looks for). */
  words?: (i: number) => string;
  /** Pad each page with filler prose to about this many bytes. */
  bodyBytes?: number;
  /** The site's robots.txt (see `SiteSpec.robots`). */
  robots?: string | PageSpec;
  /** Response time of every page (becomes `SiteSpec.defaultDelayMs`). */
  delayMs?: number;
  /** Prefix of each page's unique token: page i contains `<prefix>word<i>` (default 'uniq' → 'uniqword7'). */
  prefix?: string;
}

/** Most children a page has in the link tree; '/' links to every page when pages <= FANOUT + 1. */
export const FANOUT = 100;

const FILLER = (
  'the quiet river runs past old stone walls where gardens grow in summer light and people walk ' +
  'slowly through narrow streets to the market near the harbour while boats wait for the evening ' +
  'tide and children play beside the fountain under tall green trees that shade the square'
).split(' ');

/** Path of generated page i: '/' for 0, '/p/<i>' otherwise. */
export function generatedPath(i: number): string {
  return i === 0 ? '/' : `/p/${i}`;
}

/** The unique token on generated page i, e.g. uniqueToken(7, 'alpha') === 'alphaword7'. */
export function uniqueToken(i: number, prefix = 'uniq'): string {
  return `${prefix}word${i}`;
}

/** Children of page i in the link tree: page j's parent is floor((j - 1) / FANOUT). */
function treeChildren(i: number, pages: number): number[] {
  const children: number[] = [];
  for (let c = i * FANOUT + 1; c <= i * FANOUT + FANOUT && c < pages; c++) children.push(c);
  return children;
}

/**
 * Crawl depth (links followed from '/') needed to reach every page of a generated site:
 * 0 for a single page, 1 up to FANOUT + 1 pages, 2 up to 1 + FANOUT + FANOUT² pages, ...
 */
export function generatedDepth(pages: number): number {
  let depth = 0;
  let reach = 1;
  let level = 1;
  while (reach < pages) {
    level *= FANOUT;
    reach += level;
    depth++;
  }
  return depth;
}

/** Deterministic filler prose for page i, about `bytes` long. */
function filler(i: number, bytes: number): string {
  let seed = (i * 2654435761 + 1) >>> 0;
  const out: string[] = [];
  let length = 0;
  while (length < bytes) {
    const words: string[] = [];
    for (let w = 0; w < 12; w++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      words.push(FILLER[(seed >>> 16) % FILLER.length]);
    }
    const sentence = `<p>${words.join(' ')}.</p>\n`;
    out.push(sentence);
    length += Buffer.byteLength(sentence);
  }
  return out.join('');
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Builds a connected site of `pages` pages. The links form a shallow tree rooted at '/' with
 * fan-out FANOUT: with pages <= 101, '/' links directly to every page so crawl depth 1 reaches
 * everything; larger sites need `generatedDepth(pages)`. Besides its tree links each page has
 * `linksPerPage` cross links (the first to the next page, wrapping to '/'), which never make a
 * page deeper. Page i has title "Page i", an <h1>, the unique token `<prefix>word<i>`, the text of
 * `words(i)`, and filler prose up to about `bodyBytes`. Everything is deterministic.
 */
export function generateSite(opts: GenerateSiteOptions): SiteSpec {
  const pages = opts.pages;
  if (!Number.isInteger(pages) || pages < 1) throw new Error(`test-web: generateSite needs pages >= 1, got ${pages}`);
  const linksPerPage = opts.linksPerPage ?? 2;
  const prefix = opts.prefix ?? 'uniq';
  const result: Record<string, string> = {};
  for (let i = 0; i < pages; i++) {
    const targets = new Set(treeChildren(i, pages));
    for (let k = 0; k < linksPerPage && pages > 1; k++) {
      const target = k === 0 ? (i + 1) % pages : (i * 31 + k * 17 + 7) % pages;
      if (target !== i) targets.add(target);
    }
    const links = [...targets].map((t) => `<li><a href="${generatedPath(t)}">Page ${t}</a></li>`).join('\n');
    const extra = opts.words ? `<p>${escapeHtml(opts.words(i))}</p>\n` : '';
    const head =
      `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Page ${i}</title>\n` +
      `<meta name="description" content="Generated test page ${i}">\n</head>\n<body>\n` +
      `<h1>Page ${i} heading</h1>\n<p>This page carries the token ${uniqueToken(i, prefix)}.</p>\n${extra}` +
      `<ul>\n${links}\n</ul>\n`;
    const tail = '</body>\n</html>\n';
    const used = Buffer.byteLength(head) + Buffer.byteLength(tail);
    const pad = opts.bodyBytes !== undefined && opts.bodyBytes > used ? filler(i, opts.bodyBytes - used) : '';
    result[generatedPath(i)] = head + pad + tail;
  }
  const spec: SiteSpec = { pages: result };
  if (opts.robots !== undefined) spec.robots = opts.robots;
  if (opts.delayMs !== undefined) spec.defaultDelayMs = opts.delayMs;
  return spec;
}
