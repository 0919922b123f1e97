/**
 * Link targets (migration 0013): for every URL a stored page links to from its content, how many
 * distinct pages link to it (inlinks) and the distinct words of those links (anchor text, indexed
 * indexed by anchors_fts, which this module writes: migration 0018). Written by the crawler primary (the
 * single writer) in its batch transaction, gathered as linking pages are stored and written at the batch's
 * end; read by search. Everything a hostile page can
 * add is bounded: a page gives at most ANCHORS_PER_PAGE links of ANCHOR_MAX_WORDS words (the
 * crawler's extraction), and a target keeps at most MAX_SOURCES linking pages and MAX_ANCHORS texts.
 *
 * Which MAX_ANCHORS texts: the most used, not the first found (migration 0021). A glossary, a man page's
 * index or an API reference is linked under hundreds of distinct words (each page links the terms it
 * uses); the first pages crawled named only a few of them, and the words most pages use for the target
 * ("global interpreter lock" for the Python glossary) were left out. Each text has a count (how many
 * linking pages used it, each page once), and a new text takes the least-used one's place with its count
 * plus one: the Space-Saving rule (Metwally et al., 2005), which keeps every text used more than
 * 1/MAX_ANCHORS of the time in bounded space. Counts are kept only while a target's linking pages are
 * (MAX_SOURCES): a page fetched again never counts twice.
 */
import type { Database } from 'better-sqlite3';

/** Linking pages remembered (and counted) per target: 2 KB of ids at most. */
export const MAX_SOURCES = 500;
/** Distinct anchor texts kept per target. */
export const MAX_ANCHORS = 48;
/** Characters kept of one anchor text. */
export const MAX_ANCHOR_CHARS = 100;

/** A link of a page's content: its target URL (normalized as the frontier stores URLs) and its words. */
export interface LinkOut {
  url: string;
  text: string;
}

/** Whether the u32 little-endian list `ids` holds `id`. */
function holds(ids: Buffer, id: number): boolean {
  for (let at = 0; at + 4 <= ids.length; at += 4) if (ids.readUInt32LE(at) === id) return true;
  return false;
}

function u32(id: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(id >>> 0);
  return b;
}

/** An anchor text as stored: one line, no control characters, at most MAX_ANCHOR_CHARS. */
function cleanText(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_ANCHOR_CHARS);
}

/** A target's row as a batch of pages leaves it: `id` undefined for a target first seen in the batch. */
export interface PendingTarget {
  id: number | undefined;
  /** The anchors as stored (what anchors_fts holds for it): '' for a new target. */
  stored: string;
  inlinks: number;
  sources: Buffer;
  anchors: string;
  /** How many linking pages used each line of `anchors` (same order). */
  counts: number[];
  /** The page fetch (gather's serial) that made its page a source of this target: that fetch's texts count. */
  counting: number | undefined;
  changed: boolean;
}

/** anchor_counts as stored: one number per line of `anchors`, space-separated (rows of before 0021: 1 each). */
export function parseAnchorCounts(anchors: string, stored: string): number[] {
  const lines = anchors === '' ? 0 : anchors.split('\n').length;
  const counts = stored === '' ? [] : stored.split(' ').map(Number);
  return counts.length === lines && counts.every((n) => Number.isInteger(n) && n > 0)
    ? counts
    : Array.from({ length: lines }, () => 1);
}

/**
 * Adds what the page `sourceId`, in its fetch numbered `fetch`, says of `target` (the link's cleaned words) to the target's row: the
 * page as a source (once, however often it is fetched again) and the words as an anchor text (once per
 * distinct text, case folded), within MAX_SOURCES and MAX_ANCHORS.
 */
function addLink(target: PendingTarget, sourceId: number, text: string, fetch: number): void {
  if (!holds(target.sources, sourceId) && target.sources.length / 4 < MAX_SOURCES) {
    target.sources = Buffer.concat([target.sources, u32(sourceId)]);
    target.inlinks++;
    target.counting = fetch;
    target.changed = true;
  }
  if (text === '' || target.counting !== fetch) return; // a page fetched again, or past MAX_SOURCES
  const lines = target.anchors === '' ? [] : target.anchors.split('\n');
  const folded = text.toLowerCase();
  const at = lines.findIndex((l) => l.toLowerCase() === folded);
  if (at >= 0) target.counts[at]++;
  else if (lines.length < MAX_ANCHORS) {
    lines.push(text);
    target.counts.push(1);
  } else {
    // Space-Saving: the least-used text (the first of them) gives its place, and its count plus one.
    const least = target.counts.indexOf(Math.min(...target.counts));
    lines[least] = text;
    target.counts[least]++;
  }
  target.anchors = lines.join('\n');
  target.changed = true;
}

/** A link target's row as both engines read it. */
export interface LinkTargetRow {
  id: number;
  inlinks: number;
  sources: Buffer;
  anchors: string;
  anchor_counts: string;
}

/** A target's pending state: from its stored row, or new (`row` undefined). */
export function pendingTarget(row: LinkTargetRow | undefined): PendingTarget {
  return row === undefined
    ? {
        id: undefined,
        stored: '',
        inlinks: 0,
        sources: Buffer.alloc(0),
        anchors: '',
        counts: [],
        counting: undefined,
        changed: true,
      }
    : {
        id: row.id,
        stored: row.anchors,
        inlinks: row.inlinks,
        sources: row.sources,
        anchors: row.anchors,
        counts: parseAnchorCounts(row.anchors, row.anchor_counts),
        counting: undefined,
        changed: false,
      };
}

/**
 * Adds one fetch (numbered `fetch`) of the page `sourceId` and its content links to `targets`, loading a
 * target with `load` the first time it is named: each target and distinct text of the page once (a glossary
 * linked under three terms gets three texts). Both engines gather through it, so they keep the same rows.
 */
export function gatherPage(
  targets: Map<string, PendingTarget>,
  sourceId: number,
  links: readonly LinkOut[],
  fetch: number,
  load: (url: string) => PendingTarget,
): void {
  const seen = new Set<string>();
  for (const link of links) {
    const text = cleanText(link.text);
    const key = `${link.url}\n${text.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let target = targets.get(link.url);
    if (target === undefined) {
      target = load(link.url);
      targets.set(link.url, target);
    }
    addLink(target, sourceId, text, fetch);
  }
}

/** Prepared statements for link_targets, created once per connection. */
export function linkTargetQueries(db: Database) {
  const get = db.prepare<[string], LinkTargetRow>(
    'SELECT id, inlinks, sources, anchors, anchor_counts FROM link_targets WHERE url = ?',
  );
  const insert = db
    .prepare<[string, number, Buffer, string, string], number>(
      'INSERT INTO link_targets (url, inlinks, sources, anchors, anchor_counts) VALUES (?, ?, ?, ?, ?) RETURNING id',
    )
    .pluck();
  const update = db.prepare<[number, Buffer, string, string, number]>(
    'UPDATE link_targets SET inlinks = ?, sources = ?, anchors = ?, anchor_counts = ? WHERE id = ?',
  );
  const ftsInsert = db.prepare<[number, string]>('INSERT INTO anchors_fts (rowid, anchors) VALUES (?, ?)');
  const ftsDelete = db.prepare<[number, string]>(
    "INSERT INTO anchors_fts (anchors_fts, rowid, anchors) VALUES ('delete', ?, ?)",
  );
  const byUrl = db.prepare<[string], { inlinks: number; anchors: string; anchor_counts: string }>(
    'SELECT inlinks, anchors, anchor_counts FROM link_targets WHERE url = ?',
  );

  /** Targets gathered since the last write (see gatherLinks), by url. */
  let pending = new Map<string, PendingTarget>();
  /** Numbers each gathered page fetch: a page fetched twice in one batch counts its texts once. */
  let fetches = 0;

  const gather = (sourceId: number, links: readonly LinkOut[]): void =>
    gatherPage(pending, sourceId, links, ++fetches, (url) => pendingTarget(get.get(url)));

  const write = (): void => {
    const targets = pending;
    pending = new Map();
    // The rows first (stored ones in id order, then the new ones, which get ids above them), then their
    // anchors_fts entries (migration 0018), back to back in ascending rowids: one segment for the batch.
    const known = [...targets.values()].filter((t) => t.id !== undefined && t.changed);
    known.sort((a, b) => a.id! - b.id!);
    for (const t of known) update.run(t.inlinks, t.sources, t.anchors, t.counts.join(' '), t.id!);
    const added: PendingTarget[] = [];
    for (const [url, t] of targets) {
      if (t.id !== undefined) continue;
      t.id = insert.get(url, t.inlinks, t.sources, t.anchors, t.counts.join(' '));
      added.push(t);
    }
    for (const t of known.concat(added)) {
      if (t.stored === t.anchors) continue;
      if (t.stored !== '') ftsDelete.run(t.id!, t.stored);
      if (t.anchors !== '') ftsInsert.run(t.id!, t.anchors);
    }
  };

  return {
    /**
     * Records the content links of the stored page `sourceId` at once (see gatherLinks for what a target
     * gains). Call inside the writer's transaction.
     */
    recordLinks(sourceId: number, links: readonly LinkOut[]): void {
      gather(sourceId, links);
      write();
    },
    /**
     * Gathers the content links of the stored page `sourceId` for `writeGathered`: each target gains the
     * page as a source (once, however often the page is fetched again) and the link's words as an anchor
     * text (once per distinct text), within the bounds above. A batch of pages reads and writes each target
     * once, in id order, however many of its pages link to it. Call inside the writer's transaction.
     */
    gatherLinks(sourceId: number, links: readonly LinkOut[]): void {
      gather(sourceId, links);
    },
    /** Writes the targets gathered since the last write, in the same transaction as their gathering. */
    writeGathered(): void {
      write();
    },
    /** Forgets what was gathered: its transaction rolled back (the batch gathers it again when it runs again). */
    discardGathered(): void {
      pending = new Map();
    },
    /** What links say of a URL: distinct linking pages, anchor texts and their counts (tests and diagnostics). */
    target(url: string): { inlinks: number; anchors: string[]; counts: number[] } | undefined {
      const row = byUrl.get(url);
      return row === undefined
        ? undefined
        : {
            inlinks: row.inlinks,
            anchors: row.anchors === '' ? [] : row.anchors.split('\n'),
            counts: parseAnchorCounts(row.anchors, row.anchor_counts),
          };
    },
  };
}
