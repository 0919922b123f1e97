/** The crawler's stop mark on PostgreSQL: db/crawler-stop.ts's methods, each answering a Promise, on a PgRunner. */
import type { CrawlerStop } from '../crawler-stop.ts';
import type { PgRunner } from './pg-runner.ts';
import { statement } from './pool.ts';

const READ = statement('crawl.stop.read', 'SELECT clean, contacted_by AS "contactedBy" FROM crawler_stop WHERE id = 1');
const RUNNING = statement(
  'crawl.stop.running',
  `INSERT INTO crawler_stop (id, clean, contacted_by) VALUES (1, 0, $1)
   ON CONFLICT (id) DO UPDATE SET clean = 0, contacted_by = excluded.contacted_by`,
);
const CLEAN = statement('crawl.stop.clean', 'UPDATE crawler_stop SET clean = 1 WHERE id = 1');

/** The stop mark's queries on `db` (each method as db/crawler-stop.ts documents it). */
export function pgCrawlerStopQueries(db: PgRunner) {
  return {
    /** How the last primary stopped. */
    async lastStop(): Promise<CrawlerStop> {
      const found = (await db.rows<{ clean: number; contactedBy: number | null }>(READ))[0];
      return { clean: found?.clean === 1, contactedBy: found?.contactedBy ?? null };
    },
    /** A primary starts: until it stops cleanly, its stop counts as unclean. */
    markRunning(contactedBy: number | null): Promise<void> {
      return db.write(RUNNING, [contactedBy]);
    },
    /** The primary's last batch: everything it did is stored. */
    markCleanStop(): Promise<void> {
      return db.write(CLEAN);
    },
  };
}
