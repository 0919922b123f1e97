import type { DomainGroup } from '../domain-groups.ts';
import { formatAgo, formatCountdown, formatDateTime, plural } from '../format.ts';
import { leaseNote } from './lease-cell.tsx';

/** Props of a group's header row. */
export interface DomainGroupRowProps {
  group: DomainGroup;
  /** Columns of the table, for the row's one cell to span. */
  columns: number;
  /** The current time on the server's clock. */
  now: number;
}

/**
 * The header row of a politeness group whose hosts share one clock (`docs.python.org` and `www.python.org`
 * under `python.org`): how many hosts, and the group's clock: its request in flight or when the next may
 * start, and when the last ended; on PostgreSQL, the crawler node that holds it. The hosts' own rows follow it.
 */
export function DomainGroupRow({ group: { group, domains }, columns, now }: DomainGroupRowProps) {
  const lease = domains[0]?.lease ?? null; // one group, one lease: the same on each of its rows
  const next =
    group.inFlight > 0 ? (
      'a request in flight'
    ) : group.nextFetchAt !== null ? (
      <>
        next request{' '}
        <time dateTime={group.nextFetchAt} title={formatDateTime(group.nextFetchAt)}>
          {formatCountdown(group.nextFetchAt, now)}
        </time>
      </>
    ) : (
      'nothing queued'
    );
  return (
    <tr role="row" className="group-row" data-group={group.name}>
      <td role="cell" colSpan={columns}>
        <span className="group-name">{group.name}</span>{' '}
        <span className="muted">
          {plural(group.hosts, 'host')} share one clock
          {domains.length < group.hosts ? ` (${domains.length} shown)` : ''}: one request at a time, spaced across them
        </span>
        {' · '}
        <span className="nowrap">{next}</span>
        {group.lastFetchAt !== null ? (
          <>
            {' · '}
            <span className="nowrap">
              last ended{' '}
              <time dateTime={group.lastFetchAt} title={formatDateTime(group.lastFetchAt)}>
                {formatAgo(group.lastFetchAt, now)}
              </time>
            </span>
          </>
        ) : null}
        {lease !== null ? (
          <>
            {' · '}
            <span className="nowrap">
              held by <bdi className="owner-node">{lease.node}</bdi>
              {leaseNote(lease) !== '' ? ` (${leaseNote(lease)})` : ''}
            </span>
          </>
        ) : null}
      </td>
    </tr>
  );
}
