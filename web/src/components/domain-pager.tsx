import { formatCount } from '../format.ts';

/**
 * Which hosts of how many the Domains table shows, and buttons to the previous and next page (the server
 * sends one page: the browser never holds thousands of hosts). Nothing when everything fits on one page.
 */
export function DomainPager({
  offset,
  limit,
  total,
  onOffset,
}: {
  offset: number;
  limit: number;
  total: number;
  onOffset: (offset: number) => void;
}) {
  if (total <= limit && offset === 0) return null;
  const first = Math.min(offset + 1, total);
  const last = Math.min(offset + limit, total);
  return (
    <nav className="domain-pager" aria-label="Pages of hosts">
      <button
        type="button"
        className="button"
        disabled={offset === 0}
        onClick={() => onOffset(Math.max(0, offset - limit))}
      >
        Previous<span className="visually-hidden"> {limit} hosts</span>
      </button>
      <span className="muted" aria-live="polite">
        Hosts {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
      </span>
      <button type="button" className="button" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next<span className="visually-hidden"> {limit} hosts</span>
      </button>
    </nav>
  );
}
