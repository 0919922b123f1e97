import { formatCount } from '../format.ts';

/**
 * Which items of how many a paged table shows, and buttons to the previous and next page (the server sends
 * one page: the browser never holds ten thousand seeds or hosts). Nothing when everything fits on one page.
 * `noun` is the plural the buttons and the range name ("seeds", "hosts").
 */
export function Pager({
  noun,
  offset,
  limit,
  total,
  onOffset,
  className = '',
}: {
  noun: string;
  offset: number;
  limit: number;
  total: number;
  onOffset: (offset: number) => void;
  className?: string;
}) {
  if (total <= limit && offset === 0) return null;
  const first = Math.min(offset + 1, total);
  const last = Math.min(offset + limit, total);
  const heading = noun.charAt(0).toUpperCase() + noun.slice(1);
  return (
    <nav className={`domain-pager ${className}`.trim()} aria-label={`Pages of ${noun}`}>
      <button
        type="button"
        className="button"
        disabled={offset === 0}
        onClick={() => onOffset(Math.max(0, offset - limit))}
      >
        Previous
        <span className="visually-hidden">
          {' '}
          {limit} {noun}
        </span>
      </button>
      <span className="muted" aria-live="polite">
        {heading} {formatCount(first)}–{formatCount(last)} of {formatCount(total)}
      </span>
      <button type="button" className="button" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next
        <span className="visually-hidden">
          {' '}
          {limit} {noun}
        </span>
      </button>
    </nav>
  );
}
