/**
 * Hosts on PostgreSQL: db/hosts.ts's methods (same names, arguments and rows), each answering a Promise, on
 * a PgRunner. A host's robots.txt file (body and compiled rules) is written by saveRobotsFile only, as on
 * SQLite; saveHost writes the rest of the row.
 */
import { HOST_COLUMNS, type HostRow, newHostRow, ROBOTS_FILE } from '../hosts.ts';
import type { PgRunner } from './pg-runner.ts';
import { statement } from './pool.ts';

const SELECT = statement(
  'crawl.hosts.all',
  `SELECT ${HOST_COLUMNS.map(([k, c]) => `${c} AS "${k}"`).join(', ')} FROM hosts`,
);
// $1..$20 the columns in HOST_COLUMNS' order, $21 updated_at.
const UPSERT = statement(
  'crawl.hosts.upsert',
  `INSERT INTO hosts (${HOST_COLUMNS.map(([, c]) => c).join(', ')}, updated_at)
   VALUES (${HOST_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}, $${HOST_COLUMNS.length + 1})
   ON CONFLICT (origin) DO UPDATE SET ${HOST_COLUMNS.slice(1)
     .filter(([k]) => !ROBOTS_FILE.has(k))
     .map(([, c]) => `${c} = excluded.${c}`)
     .join(', ')}, updated_at = excluded.updated_at`,
);
const ROBOTS = statement(
  'crawl.hosts.robots-file',
  'UPDATE hosts SET robots_body = $1, robots_rules = $2 WHERE origin = $3',
);

/** The hosts' queries on `db` (each method as db/hosts.ts documents it). */
export function pgHostQueries(db: PgRunner) {
  return {
    /** Every known host, each copied into newHostRow's shape. */
    async allHosts(): Promise<HostRow[]> {
      return (await db.rows<HostRow>(SELECT)).map((r) => Object.assign(newHostRow(r.origin, r.host), r));
    },
    /** Writes a host's state: all of it for a new host, else all but its robots.txt file (see saveRobotsFile). */
    saveHost(h: HostRow, now: number): Promise<void> {
      return db.write(UPSERT, [...HOST_COLUMNS.map(([k]) => h[k]), now]);
    },
    /** Writes a known host's robots.txt body and compiled rules. */
    saveRobotsFile(origin: string, body: string | null, rules: string | null): Promise<void> {
      return db.write(ROBOTS, [body, rules, origin]);
    },
  };
}
