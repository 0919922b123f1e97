import { formatCount } from '../format.ts';

/**
 * Which seeds of how many the table shows, and buttons to the previous and next page (the server sends
 * one page: the browser never holds ten thousand seeds). Nothing when everything fits on one page.
 */
export function SeedPager({
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
    <nav className="domain-pager seed-pager" aria-label="Pages of seeds">
      <button
        type="button"
        className="button"
        disabled={offset === 0}
        onClick={() => onOffset(Math.max(0, offset - limit))}
      >
        Previous<span className="visually-hidden"> {limit} seeds</span>
      </button>
      <span className="muted">
        Seeds {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
      </span>
      <button type="button" className="button" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next<span className="visually-hidden"> {limit} seeds</span>
      </button>
    </nav>
  );
}
