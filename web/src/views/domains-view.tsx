import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { getStatus, listDomains } from '../api.ts';
import type { DomainsQuery, DomainsResponse, DomainState, Status } from '../api.ts';
import { Pager } from '../components/pager.tsx';
import { DomainTable } from '../components/domain-table.tsx';
import { StateFilter } from '../components/state-filter.tsx';
import { SortSelect } from '../components/sort-select.tsx';
import { StatusHeader } from '../components/status-header.tsx';
import { nextSort } from '../domain-sort.ts';
import type { Sort, SortKey } from '../domain-sort.ts';
import { plural } from '../format.ts';
import { useNow, usePoll } from '../use-poll.ts';
import { useTitle } from '../use-title.ts';
import { useLocation } from '../router.ts';
import { recallData, rememberData, useScrollMemory } from '../view-memory.ts';

/** What an entry of this view remembers for Back: the last answer, the order, the filter, the open rows. */
interface Remembered {
  snapshot: Snapshot;
  sort: Sort;
  filter: string;
  stateFilter: DomainState | '';
  offset: number;
  expanded: string[];
}

const POLL_MS = 1000;
/** Hosts per page: the server sends only these (and the view polls only them), however many hosts there are. */
const PAGE_SIZE = 100;

interface Snapshot {
  status: Status;
  domains: DomainsResponse;
  /** Server clock minus client clock when the answer arrived. */
  skewMs: number;
}

async function loadSnapshot(query: DomainsQuery, signal: AbortSignal): Promise<Snapshot> {
  const [status, domains] = await Promise.all([getStatus(signal), listDomains(query, signal)]);
  const serverNow = Date.parse(domains.now);
  return { status, domains, skewMs: Number.isNaN(serverNow) ? 0 : serverNow - Date.now() };
}

/**
 * The Domains view (`/domains`): crawl-wide numbers and one page of hosts, polled every second. The
 * server filters, sorts and pages (GET /api/domains), so thousands of hosts cost the browser one page.
 * Sort, filters, page and expanded rows live in this component, so polls and server restarts never reset them.
 */
export function DomainsView() {
  useTitle('Domains');
  const id = useId();
  const { cause } = useLocation();
  const [remembered] = useState(() => recallData<Remembered>('domains', cause));
  const [sort, setSort] = useState<Sort>(remembered?.sort ?? { key: 'host', dir: 'asc' });
  const [filter, setFilter] = useState(remembered?.filter ?? '');
  const [stateFilter, setStateFilter] = useState<DomainState | ''>(remembered?.stateFilter ?? '');
  const [offset, setOffset] = useState(remembered?.offset ?? 0);
  const query: DomainsQuery = {
    q: filter.trim(),
    state: stateFilter === '' ? undefined : stateFilter,
    sort: sort.key,
    dir: sort.dir,
    limit: PAGE_SIZE,
    offset,
  };
  const queryKey = JSON.stringify(query);
  const snapshot = usePoll(
    useCallback((signal: AbortSignal) => loadSnapshot(JSON.parse(queryKey) as DomainsQuery, signal), [queryKey]),
    POLL_MS,
    remembered?.snapshot ?? null,
  );
  const clientNow = useNow(1000);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set(remembered?.expanded ?? []));
  // A new filter, order or page is asked for at once, not at the next poll.
  const asked = useRef(queryKey);
  const refresh = snapshot.refresh;
  useEffect(() => {
    if (asked.current === queryKey) return;
    asked.current = queryKey;
    refresh();
  }, [queryKey, refresh]);
  /** A filter or order changes the list: back to its first page. */
  const reset =
    <T,>(set: (value: T) => void) =>
    (value: T): void => {
      set(value);
      setOffset(0);
    };
  // Back to this view shows the last answer, order, filters, page and open rows at once, and the scroll position.
  useEffect(() => {
    if (snapshot.data !== null) {
      rememberData('domains', {
        snapshot: snapshot.data,
        sort,
        filter,
        stateFilter,
        offset,
        expanded: [...expanded],
      } satisfies Remembered);
    }
  }, [snapshot.data, sort, filter, stateFilter, offset, expanded]);
  useScrollMemory(snapshot.data !== null, cause, 'domains');

  const toggle = (host: string): void => {
    setExpanded((old) => {
      const next = new Set(old);
      if (next.has(host)) next.delete(host);
      else next.add(host);
      return next;
    });
  };

  const data = snapshot.data;
  const now = clientNow + (data?.skewMs ?? 0);
  const page = data?.domains;
  const shown = page?.domains ?? [];
  const hosts = page?.hosts ?? 0;
  const total = page?.total ?? 0;
  const filtered = filter.trim() !== '' || stateFilter !== '';
  // Hosts left (a seed removed): a page past the end moves back to the last one.
  useEffect(() => {
    if (page !== undefined && page.offset > 0 && page.offset >= page.total)
      setOffset(Math.max(0, Math.floor((page.total - 1) / PAGE_SIZE) * PAGE_SIZE));
  }, [page]);

  return (
    <section className="view domains-view" aria-labelledby="domains-heading">
      <div className="section-head">
        <h1 id="domains-heading" tabIndex={-1}>
          Domains
        </h1>
        <span className={snapshot.failing ? 'live-status failing' : 'live-status'} role="status">
          {snapshot.failing ? 'reconnecting…' : data !== null ? 'live' : 'connecting…'}
        </span>
      </div>

      {data !== null ? (
        <StatusHeader status={data.status} />
      ) : snapshot.error !== null ? (
        <p role="alert" className="notice error">
          Cannot reach Lantern's server; retrying every second. ({snapshot.error.message})
        </p>
      ) : (
        <p className="muted">Loading…</p>
      )}

      <div className="table-tools">
        <label htmlFor={`${id}-filter`}>Filter hosts</label>
        <input
          id={`${id}-filter`}
          type="search"
          value={filter}
          onChange={(event) => reset(setFilter)(event.target.value)}
          placeholder="example.org"
          autoComplete="off"
          spellCheck={false}
        />
        <StateFilter id={`${id}-state`} value={stateFilter} counts={page?.states} onChange={reset(setStateFilter)} />
        <SortSelect className="phone-sort" sort={sort} onChange={reset(setSort)} />
        {data !== null ? (
          <span className="muted host-count">
            {!filtered ? plural(hosts, 'host') : `${total.toLocaleString('en-US')} of ${plural(hosts, 'host')}`}
          </span>
        ) : null}
      </div>

      {data === null ? null : hosts === 0 ? (
        <p className="empty">No hosts yet. Hosts appear here as soon as a seed is added.</p>
      ) : total === 0 ? (
        <p className="empty">
          No host{' '}
          {filter.trim() !== '' ? (
            <>
              matches “<bdi>{filter.trim()}</bdi>”
            </>
          ) : null}
          {filter.trim() !== '' && stateFilter !== '' ? ' and ' : null}
          {stateFilter !== '' ? <>is {stateFilter}</> : null}.
        </p>
      ) : (
        <>
          <DomainTable
            domains={shown}
            sort={sort}
            onSort={(key: SortKey) => reset(setSort)(nextSort(sort, key))}
            expanded={expanded}
            onToggle={toggle}
            now={now}
            owners={page?.owners}
          />
          <Pager noun="hosts" offset={page?.offset ?? 0} limit={PAGE_SIZE} total={total} onOffset={setOffset} />
        </>
      )}
    </section>
  );
}
