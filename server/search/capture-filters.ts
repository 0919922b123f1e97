/**
 * The SQL side of personal capture in search: the label: and filetype: filters (a page is a label's when
 * the seed that found it carries the label, or when it is itself a labelled seed's page), and what a
 * result shows of it: its labels, its kind of document, and for a PDF the page its snippet comes from
 * (pages.page_starts, migration 0010). Bounded by the given ids or a LIMIT, like fts-search.ts.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { FileTypeName } from './capture-operators.ts';

/** The capture filters of a query. */
export interface CaptureFilters {
  labels?: readonly string[];
  fileTypes?: readonly FileTypeName[];
}

/** WHERE additions (over pages AS p) for the capture filters; empty when there are none. */
export function captureFilterSql(filters: CaptureFilters): { where: string; params: string[] } {
  let where = '';
  const params: string[] = [];
  const labels = filters.labels ?? [];
  if (labels.length > 0) {
    const marks = labels.map(() => '?').join(', ');
    where += ` AND (p.seed_id IN (SELECT seed_id FROM seed_labels WHERE label IN (${marks}))
      OR p.url IN (SELECT s.url FROM seed_labels l JOIN seeds s ON s.id = l.seed_id WHERE l.label IN (${marks}) AND s.removed_at IS NULL))`;
    params.push(...labels, ...labels);
  }
  const types = filters.fileTypes ?? [];
  if (types.length > 0) {
    where += ` AND p.file_type IN (${types.map(() => '?').join(', ')})`;
    params.push(...types);
  }
  return { where, params };
}

/** True when a query has capture filters. */
export function hasCaptureFilters(filters: CaptureFilters): boolean {
  return (filters.labels?.length ?? 0) > 0 || (filters.fileTypes?.length ?? 0) > 0;
}

/** True when a query's site:, -site:, label: or filetype: filters narrow what it may find. */
export function hasFilters(
  filters: CaptureFilters & { sites: readonly unknown[]; excludedSites: readonly unknown[] },
): boolean {
  return filters.sites.length > 0 || filters.excludedSites.length > 0 || hasCaptureFilters(filters);
}

/** What a result shows of a page beyond fts-search.ts's PageMeta. */
export interface CaptureMeta {
  labels: string[];
  fileType: FileTypeName;
}

/** Capture facts of result pages, over one connection. */
export class CaptureSearch {
  readonly #meta: Statement;
  readonly #labels: Statement;
  readonly #position: Statement;

  constructor(db: Database) {
    this.#meta = db.prepare(
      'SELECT p.id, p.file_type AS fileType FROM json_each(?) AS j CROSS JOIN pages p ON p.id = j.value',
    );
    this.#labels = db.prepare(`SELECT j.value AS id, l.label FROM json_each(?) AS j CROSS JOIN pages p ON p.id = j.value
        JOIN seed_labels l ON l.seed_id = p.seed_id
      UNION SELECT j.value AS id, l.label FROM json_each(?) AS j CROSS JOIN pages p ON p.id = j.value
        JOIN seeds s ON s.url = p.url AND s.removed_at IS NULL JOIN seed_labels l ON l.seed_id = s.id
      ORDER BY 1, 2`);
    this.#position = db.prepare('SELECT instr(body, ?) AS pos, page_starts AS starts FROM pages WHERE id = ?');
  }

  /** Labels and kind of each page among `ids`. */
  meta(ids: readonly number[]): Map<number, CaptureMeta> {
    const out = new Map<number, CaptureMeta>();
    if (ids.length === 0) return out;
    const json = JSON.stringify(ids);
    for (const r of this.#meta.all(json) as Array<{ id: number; fileType: FileTypeName }>)
      out.set(r.id, { labels: [], fileType: r.fileType });
    for (const r of this.#labels.all(json, json) as Array<{ id: number; label: string }>)
      out.get(r.id)?.labels.push(r.label);
    return out;
  }

  /**
   * The page (1-based) of a PDF where a snippet's first matched word is (`marked`: the snippet with
   * `start`/`end` marks around matches), or null when the page has no page starts or the snippet's text
   * is not in its body (it came from another column).
   */
  pageOf(id: number, marked: string, start: string, end: string): number | null {
    const text = marked.replace(/^…/, '').replace(/…$/, '');
    const plain = text.split(start).join('').split(end).join('');
    if (plain.trim() === '') return null;
    const row = this.#position.get(plain, id) as { pos: number; starts: string | null } | undefined;
    if (row === undefined || row.starts === null || row.pos === 0) return null;
    const before = text.indexOf(start);
    const at = row.pos - 1 + (before === -1 ? 0 : Array.from(text.slice(0, before).split(end).join('')).length);
    const starts = JSON.parse(row.starts) as number[];
    let page = 0;
    while (page < starts.length && starts[page] <= at) page++;
    return page === 0 ? null : page;
  }
}
