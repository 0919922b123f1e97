import type { Seed } from '../api.ts';
import { formatCount, formatDateTime, formatTimeOfDay } from '../format.ts';

/** Where a seed's crawl is: not started, running (so far), done at a time, or failed (its own page not stored). */
export type SeedPhase = 'starting' | 'crawling' | 'done' | 'failed';

/** The phase of a seed's crawl from its state and counts. Pure. */
export function seedPhase(seed: Seed): SeedPhase {
  if (seed.state === 'failed') return 'failed';
  if (seed.doneAt !== null && seed.queued === 0) return 'done';
  return seed.found === 0 ? 'starting' : 'crawling';
}

/**
 * A seed's crawl at a glance: a progress bar of pages fetched (or given up) out of URLs found, the
 * numbers in words (so much still queued), "done at 14:05" once nothing is left to do, and for a seed
 * whose own page could not be stored, "failed" and why, in the row.
 */
export function SeedProgress({ seed }: { seed: Seed }) {
  const phase = seedPhase(seed);
  const finished = seed.found - seed.queued;
  const label =
    phase === 'failed'
      ? 'failed'
      : phase === 'done'
        ? `done at ${formatTimeOfDay(seed.doneAt as string)}`
        : phase === 'starting'
          ? 'starting'
          : `${formatCount(seed.queued)} queued`;
  return (
    <div className={`seed-progress seed-${phase}`}>
      <progress
        max={Math.max(1, seed.found)}
        value={phase === 'starting' ? 0 : phase === 'failed' ? seed.fetched : finished}
        aria-label={`Crawl of ${seed.url}: ${formatCount(finished)} of ${formatCount(seed.found)} URLs finished`}
      />
      <span className="seed-progress-text">
        {formatCount(seed.fetched)} fetched of {formatCount(seed.found)} found ·{' '}
        <span className="seed-phase" title={phase === 'done' ? formatDateTime(seed.doneAt) : undefined}>
          {label}
        </span>
        {seed.failed > 0 && phase !== 'failed' ? (
          <span className="seed-failed-count"> · {formatCount(seed.failed)} failed</span>
        ) : null}
      </span>
      {phase === 'failed' && seed.failure !== null ? (
        <span className="seed-failure" title={seed.failure}>
          {seed.failure}
        </span>
      ) : null}
    </div>
  );
}
