import { Fragment, useId } from 'react';
import type { Domain } from '../api.ts';
import type { Sort, SortKey } from '../domain-sort.ts';
import { robotsText } from '../domain-state.ts';
import { formatAgo, formatCount, formatCountdownPrecise, formatDateTime, formatDelay } from '../format.ts';
import { HostTimeline } from './host-timeline.tsx';
import { DomainGroupRow } from './domain-group-row.tsx';
import { groupDomains, isSharedGroup } from '../domain-groups.ts';
import { StateBadge } from './state-badge.tsx';
import type { DomainsResponse } from '../api.ts';
import { LeaseCell } from './lease-cell.tsx';

const DELAY_SOURCE_TEXT: Record<Domain['delaySource'], string> = {
  default: 'default',
  'crawl-delay': 'Crawl-delay',
  pacing: 'pacing',
  'retry-after': 'Retry-After',
  backoff: 'backoff',
};

const COLUMNS: { key: SortKey; label: string; numeric?: boolean }[] = [
  { key: 'host', label: 'Host' },
  { key: 'state', label: 'State' },
  { key: 'fetched', label: 'Fetched', numeric: true },
  { key: 'queued', label: 'Queued', numeric: true },
  { key: 'errors', label: 'Errors', numeric: true },
  { key: 'delay', label: 'Delay' },
  { key: 'lastFetch', label: 'Last fetch' },
  { key: 'nextFetch', label: 'Next fetch' },
  { key: 'robots', label: 'robots.txt' },
];

/** Props of the Domains table. */
export interface DomainTableProps {
  domains: Domain[];
  sort: Sort;
  onSort: (key: SortKey) => void;
  expanded: ReadonlySet<string>;
  onToggle: (host: string) => void;
  /** The current time on the server's clock, for relative times and countdowns. */
  now: number;
  /** On PostgreSQL, whether the rows' owner nodes are known: the Owner column is shown; undefined on SQLite, hidden. */
  owners?: DomainsResponse['owners'];
}

/**
 * One row per host, hosts that share a politeness clock under their group's row (domain-group-row.tsx), sortable by its column headers (aria-sort); a host button expands that host's timeline.
 * On PostgreSQL an Owner column says which crawler node holds each host's group, and since when (lease-cell.tsx).
 * On a phone the rows become cards (CSS) and the header row a bar of sort buttons; the explicit table roles
 * keep the table a table for screen readers when CSS changes its display.
 */
export function DomainTable({ domains, sort, onSort, expanded, onToggle, now, owners }: DomainTableProps) {
  const id = useId();
  const showOwner = owners !== undefined;
  const columns = COLUMNS.length + (showOwner ? 1 : 0);
  return (
    <div className="table-wrap" role="region" aria-labelledby={`${id}-caption`} tabIndex={0}>
      <table className="data-table domain-table stack-table" role="table" aria-labelledby={`${id}-caption`}>
        <caption id={`${id}-caption`} className="visually-hidden">
          Hosts and their crawl state; select a column header to sort
        </caption>
        <thead role="rowgroup">
          <tr role="row">
            {COLUMNS.map((column) => {
              const active = sort.key === column.key;
              return (
                <th
                  key={column.key}
                  scope="col"
                  role="columnheader"
                  className={column.numeric === true ? 'num' : undefined}
                  aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
                >
                  <button type="button" className="sort-button" onClick={() => onSort(column.key)}>
                    {column.label}
                    {active ? (
                      <span className="sort-arrow" aria-hidden="true">
                        {sort.dir === 'asc' ? '▲' : '▼'}
                      </span>
                    ) : null}
                  </button>
                </th>
              );
            })}
            {showOwner ? (
              <th scope="col" role="columnheader" title="The crawler node that holds the host's politeness group">
                <span className="column-label">Owner</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {groupDomains(domains).map((g) => (
            <Fragment key={`group:${g.group.name}`}>
              {isSharedGroup(g) ? <DomainGroupRow group={g} columns={columns} now={now} /> : null}
              {g.domains.map((domain) => {
                const open = expanded.has(domain.host);
                const timelineId = `${id}-timeline-${domain.host.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
                return (
                  <Fragment key={domain.host}>
                    <tr
                      role="row"
                      className={
                        [open ? 'expanded' : '', isSharedGroup(g) ? 'in-group' : ''].join(' ').trim() || undefined
                      }
                    >
                      <th scope="row" role="rowheader" className="host-cell">
                        <button
                          type="button"
                          className="host-button"
                          aria-expanded={open}
                          aria-controls={open ? timelineId : undefined}
                          onClick={() => onToggle(domain.host)}
                        >
                          <span className="chevron" aria-hidden="true">
                            {open ? '▾' : '▸'}
                          </span>
                          {domain.host}
                        </button>
                      </th>
                      <td role="cell" className="state-cell" data-label="State">
                        <StateBadge state={domain.state} text={domain.stateText} />
                        {domain.lastError !== null &&
                        domain.state !== 'idle' &&
                        !domain.stateText.includes(domain.lastError) ? (
                          <div className="cell-note" title={domain.lastError}>
                            {domain.lastError}
                          </div>
                        ) : null}
                      </td>
                      <td role="cell" className="num" data-label="Fetched">
                        {formatCount(domain.fetched)}
                      </td>
                      <td role="cell" className="num" data-label="Queued">
                        {formatCount(domain.queued)}
                      </td>
                      <td role="cell" className={domain.errors > 0 ? 'num warn-text' : 'num'} data-label="Errors">
                        {formatCount(domain.errors)}
                      </td>
                      <td role="cell" className="nowrap" data-label="Delay">
                        <span className="nowrap" title={domain.delayText}>
                          {formatDelay(domain.crawlDelayMs)}
                        </span>{' '}
                        · <span className="nowrap">{DELAY_SOURCE_TEXT[domain.delaySource] ?? domain.delaySource}</span>
                        <div className="cell-note delay-reason">{domain.delayText.replace(/^[^:]*: /, '')}</div>
                      </td>
                      <td role="cell" className="nowrap" data-label="Last fetch">
                        {domain.lastFetchAt !== null ? (
                          <time dateTime={domain.lastFetchAt} title={formatDateTime(domain.lastFetchAt)}>
                            {formatAgo(domain.lastFetchAt, now)}
                          </time>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td role="cell" className="nowrap countdown" data-label="Next fetch">
                        {domain.state === 'crawling' ? (
                          'after this one'
                        ) : domain.nextFetchAt !== null ? (
                          <time dateTime={domain.nextFetchAt} title={formatDateTime(domain.nextFetchAt)}>
                            {formatCountdownPrecise(domain.nextFetchAt, now)}
                          </time>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td role="cell" data-label="robots.txt">
                        <span className={`robots robots-${domain.robots.status}`}>{robotsText(domain.robots)}</span>
                      </td>
                      {showOwner ? <LeaseCell lease={domain.lease ?? null} owners={owners} /> : null}
                    </tr>
                    {open ? (
                      <tr role="row" className="timeline-row">
                        <td role="cell" colSpan={columns}>
                          <HostTimeline host={domain.host} id={timelineId} />
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                );
              })}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}
