import type { Database } from 'better-sqlite3';

/** How the last crawler primary stopped, as a starting one reads it (migration 0017). */
export interface CrawlerStop {
  /** The last primary stored everything before it stopped (every request's start and lease). */
  clean: boolean;
  /** The restart after the last unclean stop: every host due by then counts as contacted at it (ms), or null. */
  contactedBy: number | null;
}

/** Prepared statements for the crawler's stop mark, created once per connection (the crawler primary's). */
export function crawlerStopQueries(db: Database) {
  const read = db.prepare(`SELECT clean, contacted_by AS contactedBy FROM crawler_stop WHERE id = 1`);
  const running = db.prepare(
    `INSERT INTO crawler_stop (id, clean, contacted_by) VALUES (1, 0, ?)
     ON CONFLICT (id) DO UPDATE SET clean = 0, contacted_by = excluded.contacted_by`,
  );
  const clean = db.prepare(`UPDATE crawler_stop SET clean = 1 WHERE id = 1`);
  return {
    /** How the last primary stopped. */
    lastStop(): CrawlerStop {
      const row = read.get() as { clean: number; contactedBy: number | null } | undefined;
      return { clean: row?.clean === 1, contactedBy: row?.contactedBy ?? null };
    },
    /** A primary starts: until it stops cleanly, its stop counts as unclean; `contactedBy` as in CrawlerStop. */
    markRunning(contactedBy: number | null): void {
      running.run(contactedBy);
    },
    /** The primary's last batch: everything it did is stored (run inside that batch's transaction). */
    markCleanStop(): void {
      clean.run();
    },
  };
}
