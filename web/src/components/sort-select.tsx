import { useId } from 'react';
import type { Sort, SortKey } from '../domain-sort.ts';

/** The orders offered on a phone, in words, each a column and a direction. */
const ORDERS: Array<{ label: string; sort: Sort }> = [
  { label: 'Host A–Z', sort: { key: 'host', dir: 'asc' } },
  { label: 'Busiest first (state)', sort: { key: 'state', dir: 'asc' } },
  { label: 'Most fetched', sort: { key: 'fetched', dir: 'desc' } },
  { label: 'Most queued', sort: { key: 'queued', dir: 'desc' } },
  { label: 'Most errors', sort: { key: 'errors', dir: 'desc' } },
  { label: 'Longest delay', sort: { key: 'delay', dir: 'desc' } },
  { label: 'Fetched most recently', sort: { key: 'lastFetch', dir: 'desc' } },
  { label: 'Next fetch soonest', sort: { key: 'nextFetch', dir: 'asc' } },
  { label: 'robots.txt status', sort: { key: 'robots', dir: 'asc' } },
];

const orderValue = (sort: Sort): string => `${sort.key}:${sort.dir}`;

/**
 * Sorting as one control (a select), for phones, where the table's header of nine sort buttons would
 * fill the screen before any host. Shows the current order even when it was chosen by a column header.
 */
export function SortSelect({
  sort,
  onChange,
  className,
}: {
  sort: Sort;
  onChange: (sort: Sort) => void;
  className?: string;
}) {
  const id = useId();
  const known = ORDERS.some((o) => orderValue(o.sort) === orderValue(sort));
  return (
    <span className={className}>
      <label htmlFor={`${id}-sort`}>Sort</label>
      <select
        id={`${id}-sort`}
        value={orderValue(sort)}
        onChange={(event) => {
          const [key, dir] = event.target.value.split(':') as [SortKey, Sort['dir']];
          onChange({ key, dir });
        }}
      >
        {known ? null : (
          <option value={orderValue(sort)}>{`${sort.key} (${sort.dir === 'asc' ? 'ascending' : 'descending'})`}</option>
        )}
        {ORDERS.map((o) => (
          <option key={orderValue(o.sort)} value={orderValue(o.sort)}>
            {o.label}
          </option>
        ))}
      </select>
    </span>
  );
}
