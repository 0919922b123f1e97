/**
 * Link targets (migration 0013): for every URL a stored page links to from its content, how many
 * distinct pages link to it (inlinks) and the distinct words of those links (anchor text, indexed
 * by anchors_fts through triggers). Written by the crawler primary (the single writer) in its batch
 * transaction, right after the linking page is stored; read by search. Everything a hostile page can
 * add is bounded: a page gives at most ANCHORS_PER_PAGE links of ANCHOR_MAX_WORDS words (the
 * crawler's extraction), and a target keeps at most MAX_SOURCES linking pages and MAX_ANCHORS texts.
 */
import type { Database } from 'better-sqlite3';

/** Linking pages remembered (and counted) per target: 2 KB of ids at most. */
export const MAX_SOURCES = 500;
/** Distinct anchor texts kept per target. */
export const MAX_ANCHORS = 24;
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

/** Prepared statements for link_targets, created once per connection. */
export function linkTargetQueries(db: Database) {
  const get = db.prepare<[string], { id: number; inlinks: number; sources: Buffer; anchors: string }>(
    'SELECT id, inlinks, sources, anchors FROM link_targets WHERE url = ?',
  );
  const insert = db.prepare<[string, Buffer, string]>(
    'INSERT INTO link_targets (url, inlinks, sources, anchors) VALUES (?, 1, ?, ?)',
  );
  const update = db.prepare<[number, Buffer, string, number]>(
    'UPDATE link_targets SET inlinks = ?, sources = ?, anchors = ? WHERE id = ?',
  );
  const byUrl = db.prepare<[string], { inlinks: number; anchors: string }>(
    'SELECT inlinks, anchors FROM link_targets WHERE url = ?',
  );

  return {
    /**
     * Records the content links of the stored page `sourceId`: each target gains the page as a source
     * (once, however often the page is fetched again) and the link's words as an anchor text (once
     * per distinct text), within the bounds above. Call inside the writer's transaction.
     */
    recordLinks(sourceId: number, links: readonly LinkOut[]): void {
      const seen = new Set<string>();
      for (const link of links) {
        if (seen.has(link.url)) continue;
        seen.add(link.url);
        const text = cleanText(link.text);
        const row = get.get(link.url);
        if (row === undefined) {
          insert.run(link.url, u32(sourceId), text);
          continue;
        }
        let { inlinks, sources, anchors } = row;
        let changed = false;
        if (!holds(sources, sourceId) && sources.length / 4 < MAX_SOURCES) {
          sources = Buffer.concat([sources, u32(sourceId)]);
          inlinks++;
          changed = true;
        }
        if (text !== '') {
          const lines = anchors === '' ? [] : anchors.split('\n');
          const folded = text.toLowerCase();
          if (lines.length < MAX_ANCHORS && !lines.some((l) => l.toLowerCase() === folded)) {
            anchors = lines.concat(text).join('\n');
            changed = true;
          }
        }
        if (changed) update.run(inlinks, sources, anchors, row.id);
      }
    },
    /** What links say of a URL: distinct linking pages and anchor texts (tests and diagnostics). */
    target(url: string): { inlinks: number; anchors: string[] } | undefined {
      const row = byUrl.get(url);
      return row === undefined
        ? undefined
        : { inlinks: row.inlinks, anchors: row.anchors === '' ? [] : row.anchors.split('\n') };
    },
  };
}
