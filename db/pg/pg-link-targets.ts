/**
 * Link targets on PostgreSQL: db/link-targets.ts's gathering and its rules (addLink: each linking page once,
 * distinct anchor texts, the same bounds), with the batch's reads and writes set-based: the links a batch of
 * pages gives are kept in memory as they come, and `writeGathered` reads every target they name in one
 * statement, applies the links in the order they were gathered, then updates the known targets (in id order)
 * and inserts the new ones (ids in order of first sight) in one statement each. What SQLite leaves is what
 * this leaves, to the row; there is no anchors_fts here (the search index is derived in each server's DATA_DIR).
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

/** One page's links as gathered. */
interface Gathered {
  sourceId: number;
  links: readonly LinkOut[];
}

/** The link target queries on `db` (each method as db/link-targets.ts documents it). */
export function pgLinkTargetQueries(db: PgRunner) {
  let gathered: Gathered[] = [];

  const write = async (): Promise<void> => {
    const pages = gathered;
    gathered = [];
    const urls = new Set<string>();
    for (const p of pages) for (const link of p.links) urls.add(link.url);
    if (urls.size === 0) return;
    const stored = await db.rows<LinkTargetRow & { url: string }>(KNOWN, [[...urls]]);
    const byUrl = new Map(stored.map((r) => [r.url, r]));
    const targets = new Map<string, PendingTarget>();
    // Each gathered page is one fetch (a page fetched twice in the batch counts its texts once, as on SQLite).
    for (const [i, p] of pages.entries())
      gatherPage(targets, p.sourceId, p.links, i + 1, (url) => pendingTarget(byUrl.get(url)));
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
      gathered.push({ sourceId, links: [...links] });
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
