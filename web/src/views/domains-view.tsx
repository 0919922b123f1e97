import { useCallback, useEffect, useId, useState } from 'react';
import { getStatus, listDomains } from '../api.ts';
import type { DomainsResponse, Status } from '../api.ts';
import { DomainTable } from '../components/domain-table.tsx';
import { SortSelect } from '../components/sort-select.tsx';
import { StatusHeader } from '../components/status-header.tsx';
import { nextSort, sortDomains } from '../domain-sort.ts';
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
  expanded: string[];
}

const POLL_MS = 1000;

interface Snapshot {
  status: Status;
  domains: DomainsResponse;
  /** Server clock minus client clock when the answer arrived. */
  skewMs: number;
}

async function loadSnapshot(signal: AbortSignal): Promise<Snapshot> {
  const [status, domains] = await Promise.all([getStatus(signal), listDomains(signal)]);
  const serverNow = Date.parse(domains.now);
  return { status, domains, skewMs: Number.isNaN(serverNow) ? 0 : serverNow - Date.now() };
}

/**
 * The Domains view (`/domains`): crawl-wide numbers and one row per host, polled every second. Sort,
 * filter and expanded rows live in this component, so polls and server restarts never reset them.
 */
export function DomainsView() {
  useTitle('Domains');
  const id = useId();
  const { cause } = useLocation();
  const [remembered] = useState(() => recallData<Remembered>('domains', cause));
  const snapshot = usePoll(useCallback(loadSnapshot, []), POLL_MS, remembered?.snapshot ?? null);
  const clientNow = useNow(1000);
  const [sort, setSort] = useState<Sort>(remembered?.sort ?? { key: 'host', dir: 'asc' });
  const [filter, setFilter] = useState(remembered?.filter ?? '');
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set(remembered?.expanded ?? []));
  useEffect(() => {
    if (snapshot.data !== null) rememberData('domains', { snapshot: snapshot.data, sort, filter, expanded: [...expanded] } satisfies Remembered);
  }, [snapshot.data, sort, filter, expanded]);
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
  const all = data?.domains.domains ?? [];
  const shown = sortDomains(all, sort, filter);

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
          onChange={(event) => setFilter(event.target.value)}
          placeholder="example.org"
          autoComplete="off"
          spellCheck={false}
        />
        <SortSelect className="phone-sort" sort={sort} onChange={setSort} />
        {data !== null ? (
          <span className="muted host-count">
            {filter.trim() === '' ? plural(all.length, 'host') : `${shown.length} of ${plural(all.length, 'host')}`}
          </span>
        ) : null}
      </div>

      {data === null ? null : all.length === 0 ? (
        <p className="empty">No hosts yet. Hosts appear here as soon as a seed is added.</p>
      ) : shown.length === 0 ? (
        <p className="empty">No host matches “{filter.trim()}”.</p>
      ) : (
        <DomainTable
          domains={shown}
          sort={sort}
          onSort={(key: SortKey) => setSort((old) => nextSort(old, key))}
          expanded={expanded}
          onToggle={toggle}
          now={now}
        />
      )}
    </section>
  );
}
