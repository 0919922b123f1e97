import { useCallback, useEffect, useRef, useState } from 'react';
import { addSeed, bulkSeeds, findSeeds, removeSeed } from '../api.ts';
import type { BulkSeedRequest, Seed, SeedList } from '../api.ts';
import { AddSeedsPanel } from '../components/add-seeds-panel.tsx';
import { BulkSeedForm } from '../components/bulk-seed-form.tsx';
import { CrawlPauseNotice } from '../components/crawl-pause-notice.tsx';
import { SeedForm } from '../components/seed-form.tsx';
import type { SeedOptions } from '../components/seed-form.tsx';
import { SeedBulkBar } from '../components/seed-bulk-bar.tsx';
import { type SeedLibraryChoice, SeedLibraryToolbar } from '../components/seed-library-toolbar.tsx';
import { Pager } from '../components/pager.tsx';
import { SeedTable } from '../components/seed-table.tsx';
import { formatCount, plural } from '../format.ts';
import { parseDepth } from '../seed-input.ts';
import { cleanPrefill } from '../prefill.ts';
import { usePoll } from '../use-poll.ts';
import { useTitle } from '../use-title.ts';
import { href, navigate, useLocation } from '../router.ts';
import { ImportPanel } from '../components/import-panel.tsx';
import { BookmarkletLink } from '../components/bookmarklet-link.tsx';
import { recallData, rememberData, useScrollMemory } from '../view-memory.ts';

const REFRESH_MS = 2000;
/** Seeds on one page of the library (the server pages: the browser holds one page, however many there are). */
export const SEED_PAGE_SIZE = 50;
/** The depth the add form starts with (and returns to after a page added from the bookmarklet at depth 0). */
const DEFAULT_DEPTH = '2';

/** What an entry of this view remembers for Back: the last answer, the search, filters, order and page. */
interface Remembered {
  list: SeedList;
  query: string;
  state: SeedLibraryChoice['state'];
  sort: SeedLibraryChoice['sort'];
  offset: number;
}

/** What a bulk action did, in words. */
function bulkDone(action: BulkSeedRequest['action'], count: number, labels: string[]): string {
  const seeds = plural(count, 'seed');
  if (action === 'remove')
    return `Removed ${seeds}: the crawler stops fetching what they found, and their pages leave search.`;
  if (action === 'crawl') return `Crawling ${seeds} again: every page they found is checked for changes.`;
  if (action === 'label') return `Labelled ${seeds} ${labels.join(', ')}.`;
  return `Took ${labels.join(', ')} off ${seeds}.`;
}

/**
 * The Seeds view (`/seeds`), a library for thousands of seeds: search within them (title, URL, label),
 * filter by label and state, sort, page through them (the server does each: GET /api/seeds), select
 * many and act on them in one request; the page shown is refreshed every 2 s. The add and import forms
 * are folded away once there are seeds. `?add=URL&title=T` (what the bookmarklet opens) fills the form,
 * cleaned of control characters, for the person to check and confirm (see SeedForm: the focus is not on
 * "Add seed"), and says so once added; `?label=NAME` shows only that label's seeds.
 */
export function SeedsView() {
  useTitle('Seeds');
  const location = useLocation();
  const addUrl = location.params.get('add');
  const label = location.params.get('label') ?? '';
  // Written by whichever page opened this address: shown and sent only without control and bidi characters.
  const prefill = addUrl === null ? undefined : cleanPrefill(addUrl, location.params.get('title') ?? '');
  const [options, setOptions] = useState<SeedOptions>({ depth: addUrl === null ? DEFAULT_DEPTH : '0', scope: 'host' });
  // Back to this view: the list it showed, at once, with its search and page, and its scroll position.
  const [remembered] = useState(() => recallData<Remembered>('seeds', location.cause) ?? null);
  const [query, setQuery] = useState(remembered?.query ?? '');
  const [state, setState] = useState<SeedLibraryChoice['state']>(remembered?.state ?? '');
  const [sort, setSort] = useState<SeedLibraryChoice['sort']>(remembered?.sort ?? 'newest');
  const [offset, setOffset] = useState(remembered?.offset ?? 0);
  const [selected, setSelected] = useState<ReadonlySet<number>>(new Set());
  const seeds = usePoll(
    useCallback(
      (signal: AbortSignal) =>
        findSeeds(
          {
            q: query.trim(),
            label: label === '' ? undefined : label,
            state: state === '' ? undefined : state,
            sort,
            limit: SEED_PAGE_SIZE,
            offset,
          },
          signal,
        ),
      [query, label, state, sort, offset],
    ),
    REFRESH_MS,
    remembered?.list ?? null,
  );
  useEffect(() => {
    if (seeds.data !== null) rememberData('seeds', { list: seeds.data, query, state, sort, offset });
  }, [seeds.data, query, state, sort, offset]);
  useScrollMemory(seeds.data !== null, location.cause, 'seeds');
  const refresh = seeds.refresh;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new search, filter, order or page is asked for at once
  useEffect(() => refresh(), [query, label, state, sort, offset, refresh]);
  const filtered = query.trim() !== '' || label !== '' || state !== '';
  // The forms are open while there is no seed at all (decided by the first answer), or a page is being added.
  const [formsOpen, setFormsOpen] = useState<boolean | null>(addUrl !== null ? true : null);
  useEffect(() => {
    if (formsOpen === null && seeds.data !== null) setFormsOpen(seeds.data.total === 0 && !filtered);
  }, [formsOpen, seeds.data, filtered]);
  useEffect(() => {
    if (addUrl !== null) setFormsOpen(true);
  }, [addUrl]);

  const [again, setAgain] = useState<{ text: string; failed: boolean } | null>(null);
  const [pendingId, setPendingId] = useState<Seed['id'] | null>(null);
  const [bulkPending, setBulkPending] = useState(false);
  /** Where focus goes once a removed seed's row (and the button that had focus) is gone. */
  const listHeading = useRef<HTMLHeadingElement>(null);

  /** A new search, filter or order: back to the first page of what it lists. */
  const choose = (next: Partial<SeedLibraryChoice>): void => {
    if (next.query !== undefined) setQuery(next.query);
    if (next.state !== undefined) setState(next.state);
    if (next.sort !== undefined) setSort(next.sort);
    if (next.label !== undefined) navigate(href('/seeds', { label: next.label }), { replace: true });
    setOffset(0);
  };

  const report = (text: string, failed: boolean): void => setAgain({ text, failed });
  const reason = (error: unknown): string => (error instanceof Error ? error.message : String(error));

  /** "Crawl again": the seed is submitted again as it is, which re-crawls everything it found. */
  const crawlAgain = async (seed: Seed): Promise<void> => {
    setPendingId(seed.id);
    try {
      await addSeed({ url: seed.url, depth: seed.depth, scope: seed.scope });
      report(`Crawling ${seed.url} again: every page it found (depth ${seed.depth}) is checked for changes.`, false);
      refresh();
    } catch (error) {
      report(`${seed.url} could not be crawled again: ${reason(error)}`, true);
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
      report(`Removed ${seed.url}: the crawler stops fetching what it found, and its pages leave search.`, false);
      refresh();
    } catch (error) {
      report(`${seed.url} could not be removed: ${reason(error)}`, true);
    } finally {
      setPendingId(null);
    }
  };

  /** One action on every selected seed, in one request. */
  const applyBulk = async (action: BulkSeedRequest['action'], labels: string[]): Promise<void> => {
    setBulkPending(true);
    try {
      const answer = await bulkSeeds({ action, ids: [...selected], ...(labels.length > 0 ? { labels } : {}) });
      setSelected(new Set());
      listHeading.current?.focus();
      report(bulkDone(action, answer.count, labels), false);
      refresh();
    } catch (error) {
      report(`The selected seeds could not be changed: ${reason(error)}`, true);
    } finally {
      setBulkPending(false);
    }
  };

  const select = (ids: number[], on: boolean): void =>
    setSelected((current) => {
      const next = new Set(current);
      for (const id of ids) {
        if (on) next.add(id);
        else next.delete(id);
      }
      return next;
    });

  const list = seeds.data;
  return (
    <section className="view seeds-view" aria-labelledby="seeds-heading">
      <h1 id="seeds-heading" tabIndex={-1}>
        Seeds
      </h1>
      <p className="lede">
        Seeds are where crawling starts. Lantern fetches each one and follows its links up to the depth you choose.
      </p>
      <CrawlPauseNotice />
      {/* Shown once the first answer said whether there are seeds (open at once for the bookmarklet). */}
      {formsOpen === null ? null : (
        <AddSeedsPanel open={formsOpen} onToggle={setFormsOpen}>
          <div className="seed-forms">
            <SeedForm
              options={options}
              onOptionsChange={setOptions}
              prefill={prefill}
              onAdded={() => {
                refresh();
                if (prefill !== undefined) {
                  // The bookmarklet's page is added at depth 0; the next seed of this tab gets the usual depth.
                  setOptions((current) => ({ ...current, depth: DEFAULT_DEPTH }));
                  navigate(href('/seeds', { label }), { replace: true });
                }
              }}
            />
            <BulkSeedForm depth={parseDepth(options.depth)} scope={options.scope} onAdded={refresh} />
          </div>
          <ImportPanel onImported={refresh} onFileTaken={() => setFormsOpen(true)} />
          <BookmarkletLink />
        </AddSeedsPanel>
      )}

      <div className="section-head">
        <h2 id="seed-list-heading" ref={listHeading} tabIndex={-1}>
          Seed list
        </h2>
        {list !== null ? (
          <span className="muted seed-count">
            {filtered ? `${formatCount(list.total)} matching` : plural(list.total, 'seed')}
          </span>
        ) : null}
        {seeds.failing ? (
          <span className="live-status failing" role="status">
            reconnecting…
          </span>
        ) : null}
      </div>
      <SeedLibraryToolbar choice={{ query, label, state, sort }} onChange={choose} />
      {again !== null ? (
        <p role={again.failed ? 'alert' : 'status'} className={again.failed ? 'notice error' : 'notice info'}>
          {again.text}
        </p>
      ) : null}
      {selected.size > 0 ? (
        <SeedBulkBar
          count={selected.size}
          pending={bulkPending}
          onApply={(action, labels) => void applyBulk(action, labels)}
          onClear={() => setSelected(new Set())}
        />
      ) : null}
      {list === null ? (
        seeds.error !== null ? (
          <p role="alert" className="notice error">
            The seed list could not be loaded: {seeds.error.message}
          </p>
        ) : (
          <p className="muted">Loading…</p>
        )
      ) : list.seeds.length === 0 ? (
        <p className="empty">
          {filtered
            ? 'No seed matches this search and these filters.'
            : 'No seeds yet. Add a URL above to start crawling.'}
        </p>
      ) : (
        <>
          <SeedTable
            seeds={list.seeds}
            now={Date.now()}
            selected={selected}
            onSelect={select}
            onCrawlAgain={(seed) => void crawlAgain(seed)}
            onRemove={(seed) => void remove(seed)}
            pendingId={pendingId}
            onLabelsChanged={refresh}
          />
          <Pager
            noun="seeds"
            className="seed-pager"
            offset={offset}
            limit={SEED_PAGE_SIZE}
            total={list.total}
            onOffset={setOffset}
          />
        </>
      )}
    </section>
  );
}
