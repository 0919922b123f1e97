/** How big the frontier's windows are (frontier-window.ts): the defaults, and a host's share of them. */
/**
 * The window's sizes, measured with `npm run bench:frontier` (docs/benchmarks.md): `size` page jobs per
 * host at most; a host with fewer than `low` is read again after the next flush (refills batched per
 * flush, at most `perFlush` hosts a flush, so no flush is long), and one with fewer than `syncBelow` when
 * its request ended (none left) first of all by the next flush, which that asks for: storage answers
 * Promises, so nothing reads it within a dispatch or a result (frontier-window.ts readyAgain); one refill reads at
 * most `readBudget` rows (rows of a removed seed are read and passed over, so a long run of them is
 * crossed over several flushes, never in one long stall). At start `startHosts` hosts get their window
 * before the first dispatch, so that a restart reads little before it dispatches; the flushes that
 * follow read the others' (a read costs about the same for 2 rows as for 16: it is the seek that costs;
 * the hosts a start or a flush reads are read together, one storage read per round, window-fill.ts).
 * Over all hosts the windows aim at `total` jobs: with H hosts waiting each is filled to total / H jobs,
 * at least `min` and at most `size`, and read again below the same share of `low` (at 10,000 hosts: 4
 * jobs, read again below 2; a job in the window costs about 400 bytes of heap with its URL, measured
 * with 160,000 of them; 144,160 jobs held in windows took the primary to 287 MiB of RSS at 1,000,000
 * queued). `perFlush` is sized so that refills keep up: at 10,000 hosts a host is read again every
 * second job it hands out. A removed seed's rows and jobs are passed over at most `passOverPerStep` at a
 * time: one dispatch call, or one flush's refills, that has passed over that many yields (the dispatch
 * loop comes back at once, on its next turn), so a removed seed of 100,000 queued URLs on 1,000 hosts is
 * crossed in steps of a few ms, never in one long stall of every other host's dispatch (measured before
 * the bound: a single dispatch call of 1.4 s, `npm run bench:frontier`, docs/benchmarks.md).
 */
export const WINDOW: Readonly<WindowSizes> = {
  size: 16,
  low: 8,
  syncBelow: 1,
  readBudget: 256,
  perFlush: 256,
  startHosts: 256,
  total: 40_000,
  min: 4,
  passOverPerStep: 512,
};

/** How big a host's window is and when it is read again (see WINDOW). */
export interface WindowSizes {
  size: number;
  low: number;
  syncBelow: number;
  readBudget: number;
  perFlush: number;
  startHosts: number;
  /** The jobs all windows aim to hold together (each host's share, between `min` and `size`). */
  total: number;
  /** The fewest jobs a host's window is filled to, however many hosts wait. */
  min: number;
  /** A removed seed's rows and jobs passed over per dispatch call or per flush's refills, at most (about). */
  passOverPerStep: number;
}

/**
 * A host's window now, with `activeHosts` hosts having URLs waiting: filled to `cap` jobs (its share of
 * `total`, at least `min` and at most `size`), read again below `low` (`low` in the proportion of `cap`
 * to `size`). Pure.
 */
export function windowCap(
  sizes: Pick<WindowSizes, 'size' | 'total' | 'min' | 'low'>,
  activeHosts: number,
): { cap: number; low: number } {
  const { size, total, min, low } = sizes;
  if (activeHosts * size <= total) return { cap: size, low };
  const cap = Math.max(Math.min(min, size), Math.min(size, Math.floor(total / activeHosts)));
  return { cap, low: Math.ceil((low * cap) / size) };
}
