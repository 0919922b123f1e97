/**
 * Link targets on PostgreSQL: db/link-targets.ts's gathering and its rules (addLink: each linking page once,
 * distinct anchor texts, the same bounds), with the batch's reads and writes set-based: the links a batch of
 * pages gives are kept in memory as they come, and `writeGathered` reads every target they name in one
 * statement, applies the links in the order they were gathered, then updates the known targets (in id order)
 * and inserts the new ones (ids in order of first sight) in one statement each. What SQLite leaves is what
 * this leaves, to the row; there is no anchors_fts here (the search index is derived in each server's DATA_DIR).
 *
 * A linking page is named by its id (gatherLinks) or by its url (gatherLinksOf: its upsert was held, so its
 * id was never answered); the same statement that reads the targets reads those pages' ids, after the held
 * upserts (they travel in front of it), so a batch of pages costs no round trip per page.
 */
import {
  gatherPage,
  type LinkOut,
  type LinkTargetRow,
  parseAnchorCounts,
  type PendingTarget,
  pendingTarget,
} from '../link-targets.ts';
import type { PgRunner } from './pg-runner.ts';
import { statement } from './pool.ts';

const KNOWN = statement(
  'crawl.link-targets.known',
  'SELECT id, url, inlinks, sources, anchors, anchor_counts FROM link_targets WHERE url = ANY ($1::text[])',
);
// The same, with the ids of the linking pages named by url ($2): those rows have `page` true.
const KNOWN_AND_PAGES = statement(
  'crawl.link-targets.known-and-pages',
  `SELECT false AS page, id, url, inlinks, sources, anchors, anchor_counts FROM link_targets WHERE url = ANY ($1::text[])
   UNION ALL
   SELECT true, id, url, NULL, NULL, NULL, NULL FROM pages WHERE url = ANY ($2::text[])`,
);
const UPDATE = statement(
  'crawl.link-targets.update',
  `UPDATE link_targets t SET inlinks = v.inlinks, sources = v.sources, anchors = v.anchors, anchor_counts = v.counts
   FROM unnest($1::bigint[], $2::int[], $3::bytea[], $4::text[], $5::text[]) AS v (id, inlinks, sources, anchors, counts)
   WHERE t.id = v.id`,
);
const INSERT = statement(
  'crawl.link-targets.insert',
  `INSERT INTO link_targets (url, inlinks, sources, anchors, anchor_counts)
   SELECT url, inlinks, sources, anchors, counts
   FROM unnest($1::text[], $2::int[], $3::bytea[], $4::text[], $5::text[])
     WITH ORDINALITY AS v (url, inlinks, sources, anchors, counts, ord)
   ORDER BY ord`,
);
const BY_URL = statement(
  'crawl.link-targets.by-url',
  'SELECT inlinks, anchors, anchor_counts FROM link_targets WHERE url = $1',
);

/** One page's links as gathered: the page by id, or by url (its id read at the write). */
interface Gathered {
  source: number | string;
  links: readonly LinkOut[];
}

/** A page a batch named by url that has no row at the batch's end: a bug of the caller, not an outage. */
export class PgLinkSourceError extends Error {
  override name = 'PgLinkSourceError';
}

/** The link target queries on `db` (each method as db/link-targets.ts documents it). */
export function pgLinkTargetQueries(db: PgRunner) {
  let gathered: Gathered[] = [];

  const write = async (): Promise<void> => {
    const pages = gathered;
    gathered = [];
    const urls = new Set<string>();
    const sources = new Set<string>();
    for (const p of pages) {
      for (const link of p.links) urls.add(link.url);
      if (typeof p.source === 'string' && p.links.length > 0) sources.add(p.source);
    }
    if (urls.size === 0) return;
    const stored =
      sources.size === 0
        ? await db.rows<LinkTargetRow & { url: string; page?: boolean }>(KNOWN, [[...urls]])
        : await db.rows<LinkTargetRow & { url: string; page: boolean }>(KNOWN_AND_PAGES, [[...urls], [...sources]]);
    const byUrl = new Map(stored.filter((r) => r.page !== true).map((r) => [r.url, r]));
    const pageIds = new Map(stored.filter((r) => r.page === true).map((r) => [r.url, r.id]));
    const idOf = (source: number | string): number => {
      if (typeof source === 'number') return source;
      const id = pageIds.get(source);
      if (id === undefined)
        throw new PgLinkSourceError(
          `pg-link-targets: links were gathered for ${source}, which has no stored page; store the page first`,
        );
      return id;
    };
    const targets = new Map<string, PendingTarget>();
    // Each gathered page is one fetch (a page fetched twice in the batch counts its texts once, as on SQLite).
    for (const [i, p] of pages.entries())
      if (p.links.length > 0)
        gatherPage(targets, idOf(p.source), p.links, i + 1, (url) => pendingTarget(byUrl.get(url)));
    const known = [...targets.values()].filter((t) => t.id !== undefined && t.changed).sort((a, b) => a.id! - b.id!);
    if (known.length > 0) {
      await db.write(UPDATE, [
        known.map((t) => t.id),
        known.map((t) => t.inlinks),
        known.map((t) => t.sources),
        known.map((t) => t.anchors),
        known.map((t) => t.counts.join(' ')),
      ]);
    }
    const added = [...targets].filter(([, t]) => t.id === undefined);
    if (added.length > 0) {
      await db.write(INSERT, [
        added.map(([url]) => url),
        added.map(([, t]) => t.inlinks),
        added.map(([, t]) => t.sources),
        added.map(([, t]) => t.anchors),
        added.map(([, t]) => t.counts.join(' ')),
      ]);
    }
  };

  return {
    /** Gathers the content links of the stored page `sourceId` for `writeGathered` (see db/link-targets.ts). */
    async gatherLinks(sourceId: number, links: readonly LinkOut[]): Promise<void> {
      gathered.push({ source: sourceId, links: [...links] });
    },
    /**
     * Gathers the content links of the page stored at `pageUrl` in this transaction (its upsert held, its id
     * not answered), as gatherLinks does; the id is read by url at `writeGathered`, after the page's upsert.
     */
    async gatherLinksOf(pageUrl: string, links: readonly LinkOut[]): Promise<void> {
      gathered.push({ source: pageUrl, links: [...links] });
    },
    /** Writes the targets gathered since the last write, in the same transaction as their gathering. */
    writeGathered: write,
    /** Forgets what was gathered: its transaction rolled back. */
    async discardGathered(): Promise<void> {
      gathered = [];
    },
    /** What links say of a URL: distinct linking pages, anchor texts and their counts (tests and diagnostics). */
    async target(url: string): Promise<{ inlinks: number; anchors: string[]; counts: number[] } | undefined> {
      const found = (await db.rows<{ inlinks: number; anchors: string; anchor_counts: string }>(BY_URL, [url]))[0];
      return found === undefined
        ? undefined
        : {
            inlinks: found.inlinks,
            anchors: found.anchors === '' ? [] : found.anchors.split('\n'),
            counts: parseAnchorCounts(found.anchors, found.anchor_counts),
          };
    },
  };
}
