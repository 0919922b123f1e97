/**
 * Runs cache-prime.ts's reads on the search's connection, one slice per turn of the event loop (a few
 * ms each at 1M pages), so that searches answer meanwhile. I/O wiring: the reads are planned there.
 */
import type { Database } from 'better-sqlite3';
import { KEYED_READS, PRIME_TERM_ROWS, SHORT_TEXTS_LOOKUP_SQL, shortTextLookups, TERM_READS } from './cache-prime.ts';

/** What a prime read: slices run, the longest (the event loop's longest wait), and the bytes of the rows' values read. */
export interface PrimeReport {
  ms: number;
  slices: number;
  longestSliceMs: number;
  bytes: number;
}

/**
 * Reads the plan of cache-prime.ts through `db`, yielding to the event loop between slices, until done or
 * until `stopped()` says the service closed. Rejects with a `cache-prime-run:` error when a read fails
 * (searches are unaffected: their first ones fill the cache as before).
 */
export async function primeCache(db: Database, stopped: () => boolean): Promise<PrimeReport> {
  const started = performance.now();
  let slices = 0;
  let bytes = 0;
  let longestSliceMs = 0;
  let sliceStart = performance.now();
  const turn = async () => {
    longestSliceMs = Math.max(longestSliceMs, performance.now() - sliceStart);
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  };
  const report = () => ({ ms: performance.now() - started, slices, longestSliceMs, bytes });
  try {
    for (const sql of TERM_READS) {
      const slice = db.prepare(sql).raw();
      let last: [number, string] = [-1, ''];
      for (;;) {
        if (stopped()) return report();
        const rows = slice.all(...last, PRIME_TERM_ROWS) as Array<[number, string]>;
        slices++;
        for (const [, term] of rows) bytes += term.length;
        await turn();
        if (rows.length < PRIME_TERM_ROWS) break;
        last = rows[rows.length - 1];
      }
    }
    for (const read of KEYED_READS) {
      const slice = db.prepare(read.sql);
      let last = 0;
      for (;;) {
        if (stopped()) return report();
        const r = slice.get(last, read.rows) as { last: number | null; n: number; bytes: number | null };
        slices++;
        bytes += r.bytes ?? 0;
        await turn();
        if (r.last === null || r.n < read.rows) break;
        last = r.last;
      }
    }
    if (stopped()) return report();
    const maxId = db.prepare('SELECT coalesce(max(id), 0) FROM pages').pluck().get() as number;
    const lookup = db.prepare(SHORT_TEXTS_LOOKUP_SQL);
    for (const ids of shortTextLookups(maxId)) {
      if (stopped()) break;
      lookup.get(JSON.stringify(ids));
      slices++;
      await turn();
    }
  } catch (err) {
    throw new Error(
      `cache-prime-run: priming the search's page cache failed (${(err as Error).message}); searches work, the first ones fill it`,
    );
  }
  return report();
}
