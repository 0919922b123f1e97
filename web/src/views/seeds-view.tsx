import { useCallback, useEffect, useRef, useState } from 'react';
import { addSeed, listSeeds, listSeedsWithLabel, removeSeed } from '../api.ts';
import type { Seed, SeedList } from '../api.ts';
import { BulkSeedForm } from '../components/bulk-seed-form.tsx';
import { CrawlPauseNotice } from '../components/crawl-pause-notice.tsx';
import { SeedForm } from '../components/seed-form.tsx';
import type { SeedOptions } from '../components/seed-form.tsx';
import { SeedTable } from '../components/seed-table.tsx';
import { seedCountText } from '../format.ts';
import { parseDepth } from '../seed-input.ts';
import { cleanPrefill } from '../prefill.ts';
import { usePoll } from '../use-poll.ts';
import { useTitle } from '../use-title.ts';
import { href, navigate, useLocation } from '../router.ts';
import { ImportPanel } from '../components/import-panel.tsx';
import { BookmarkletLink } from '../components/bookmarklet-link.tsx';
import { LabelFilter } from '../components/label-filter.tsx';
import { recallData, rememberData, useScrollMemory } from '../view-memory.ts';

const REFRESH_MS = 2000;

/**
 * The Seeds view (`/seeds`): add one seed or several, import bookmarks, and watch every seed's progress
 * (refreshed every 2 s). `?add=URL&title=T` (what the bookmarklet opens) fills the form, cleaned of control
 * characters, for the person to check and confirm (see SeedForm: the focus is not on "Add seed");
 * `?label=NAME` shows only that label's seeds.
 */
export function SeedsView() {
  useTitle('Seeds');
  const location = useLocation();
  const addUrl = location.params.get('add');
  const label = location.params.get('label') ?? '';
  // Written by whichever page opened this address: shown and sent only without control and bidi characters.
  const prefill = addUrl === null ? undefined : cleanPrefill(addUrl, location.params.get('title') ?? '');
  const [options, setOptions] = useState<SeedOptions>({ depth: addUrl === null ? '2' : '0', scope: 'host' });
  // Back to this view: the list it showed, at once, and its scroll position; polling then updates it in place.
  const [remembered] = useState(() => recallData<SeedList>('seeds', location.cause) ?? null);
  const seeds = usePoll(
    useCallback(
      (signal: AbortSignal) => (label === '' ? listSeeds(signal) : listSeedsWithLabel(label, signal)),
      [label],
    ),
    REFRESH_MS,
    remembered,
  );
  useEffect(() => {
    if (seeds.data !== null) rememberData('seeds', seeds.data);
  }, [seeds.data]);
  useScrollMemory(seeds.data !== null, location.cause, 'seeds');
  const refresh = seeds.refresh;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new label filter is asked for at once
  useEffect(() => refresh(), [label, refresh]); // a new label filter shows its seeds at once, not at the next poll
  const [again, setAgain] = useState<{ text: string; failed: boolean } | null>(null);
  const [pendingId, setPendingId] = useState<Seed['id'] | null>(null);
  /** Where focus goes once a removed seed's row (and the button that had focus) is gone. */
  const listHeading = useRef<HTMLHeadingElement>(null);

  /** "Crawl again": the seed is submitted again as it is, which re-crawls everything it found. */
  const crawlAgain = async (seed: Seed): Promise<void> => {
    setPendingId(seed.id);
    try {
      await addSeed({ url: seed.url, depth: seed.depth, scope: seed.scope });
      setAgain({
        text: `Crawling ${seed.url} again: every page it found (depth ${seed.depth}) is checked for changes.`,
        failed: false,
      });
      refresh();
    } catch (error) {
      setAgain({
        text: `${seed.url} could not be crawled again: ${error instanceof Error ? error.message : String(error)}`,
        failed: true,
      });
    } finally {
      setPendingId(null);
    }
  };

  /** "Remove": the crawler stops fetching what the seed found, and its pages leave search. */
  const remove = async (seed: Seed): Promise<void> => {
    setPendingId(seed.id);
    try {
      await removeSeed(seed.id);
      listHeading.current?.focus();
      setAgain({
        text: `Removed ${seed.url}: the crawler stops fetching what it found, and its pages leave search.`,
        failed: false,
      });
      refresh();
    } catch (error) {
      setAgain({
        text: `${seed.url} could not be removed: ${error instanceof Error ? error.message : String(error)}`,
        failed: true,
      });
    } finally {
      setPendingId(null);
    }
  };

  return (
    <section className="view seeds-view" aria-labelledby="seeds-heading">
      <h1 id="seeds-heading" tabIndex={-1}>
        Seeds
      </h1>
      <p className="lede">
        Seeds are where crawling starts. Lantern fetches each one and follows its links up to the depth you choose.
      </p>
      <CrawlPauseNotice />
      <div className="seed-forms">
        <SeedForm
          key={addUrl ?? ''}
          options={options}
          onOptionsChange={setOptions}
          prefill={prefill}
          onAdded={() => {
            refresh();
            if (prefill !== undefined) navigate(href('/seeds', { label }), { replace: true });
          }}
        />
        <BulkSeedForm depth={parseDepth(options.depth)} scope={options.scope} onAdded={refresh} />
      </div>
      <ImportPanel onImported={refresh} />
      <BookmarkletLink />

      <div className="section-head">
        <h2 id="seed-list-heading" ref={listHeading} tabIndex={-1}>
          Seed list
        </h2>
        {seeds.data !== null ? (
          <span className="muted">{seedCountText(seeds.data.seeds.length, seeds.data.total, label !== '')}</span>
        ) : null}
        <LabelFilter value={label} onChange={(next) => navigate(href('/seeds', { label: next }), { replace: true })} />
        {seeds.failing ? (
          <span className="live-status failing" role="status">
            reconnecting…
          </span>
        ) : null}
      </div>
      {again !== null ? (
        <p role={again.failed ? 'alert' : 'status'} className={again.failed ? 'notice error' : 'notice info'}>
          {again.text}
        </p>
      ) : null}
      {seeds.data === null ? (
        seeds.error !== null ? (
          <p role="alert" className="notice error">
            The seed list could not be loaded: {seeds.error.message}
          </p>
        ) : (
          <p className="muted">Loading…</p>
        )
      ) : seeds.data.seeds.length === 0 ? (
        <p className="empty">No seeds yet. Add a URL above to start crawling.</p>
      ) : (
        <SeedTable
          seeds={seeds.data.seeds}
          now={Date.now()}
          onCrawlAgain={(seed) => void crawlAgain(seed)}
          onRemove={(seed) => void remove(seed)}
          pendingId={pendingId}
          onLabelsChanged={refresh}
        />
      )}
    </section>
  );
}
