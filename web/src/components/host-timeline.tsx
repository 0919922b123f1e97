import { useCallback } from 'react';
import { hostRequests } from '../api.ts';
import { displayUrl, formatClock, formatDuration } from '../format.ts';
import { layoutTimeline } from '../timeline.ts';
import type { StatusClass, TimelineMark } from '../timeline.ts';
import { usePoll } from '../use-poll.ts';

const WIDTH = 1000;
const HEIGHT = 40;
const REFRESH_MS = 2000;
const CLASSES: StatusClass[] = ['2xx', '3xx', '4xx', '5xx', 'error', 'none'];
const CLASS_TEXT: Record<StatusClass, string> = {
  '2xx': '2xx',
  '3xx': '3xx',
  '4xx': '4xx',
  '5xx': '5xx',
  error: 'error',
  none: 'no robots.txt',
};

function outcome(mark: TimelineMark): string {
  const { request } = mark;
  if (request.status !== null)
    return request.error !== null ? `${request.status} (${request.error})` : String(request.status);
  return request.error ?? 'no answer';
}

function describeMark(mark: TimelineMark): string {
  return `${mark.request.url} — ${outcome(mark)} — ${formatDuration(mark.request.durationMs)}`;
}

/**
 * The last requests to one host as marks on a time axis (inline SVG): each mark's width is the request's
 * duration and its colour the status class; hovering shows URL, status and duration, and the same data is
 * available as a list for keyboards and screen readers.
 */
export function HostTimeline({ host, id }: { host: string; id: string }) {
  const polled = usePoll(
    useCallback((signal: AbortSignal) => hostRequests(host, signal), [host]),
    REFRESH_MS,
  );
  const requests = polled.data?.requests ?? [];
  const layout = layoutTimeline(requests, WIDTH);
  const counts = new Map<StatusClass, number>();
  for (const mark of layout.marks) counts.set(mark.statusClass, (counts.get(mark.statusClass) ?? 0) + 1);
  const summary = CLASSES.filter((c) => counts.has(c))
    .map((c) => `${counts.get(c)} × ${CLASS_TEXT[c]}`)
    .join(', ');
  const span = layout.to - layout.from;

  return (
    <div className="timeline" id={id}>
      <div className="timeline-head">
        <h3>Recent requests to {host}</h3>
        {polled.failing ? (
          <span className="live-status failing" role="status">
            reconnecting…
          </span>
        ) : null}
      </div>
      {polled.data === null ? (
        polled.error !== null ? (
          <p role="alert" className="notice error">
            The timeline could not be loaded: {polled.error.message}
          </p>
        ) : (
          <p className="muted">Loading…</p>
        )
      ) : layout.marks.length === 0 ? (
        <p className="muted">No requests to this host yet.</p>
      ) : (
        <>
          <svg
            className="timeline-svg"
            viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
            preserveAspectRatio="none"
            role="img"
            aria-label={`${requests.length} requests to ${host} over ${formatDuration(span)}: ${summary}`}
          >
            <line className="timeline-axis" x1="0" y1={HEIGHT - 1} x2={WIDTH} y2={HEIGHT - 1} />
            {layout.marks.map((mark, index) => (
              <rect
                key={`${mark.start}-${index}`}
                className={`mark mark-${mark.statusClass}`}
                x={mark.x}
                y={6}
                width={mark.width}
                height={HEIGHT - 12}
              >
                <title>{describeMark(mark)}</title>
              </rect>
            ))}
          </svg>
          <div className="timeline-scale" aria-hidden="true">
            <span>{formatClock(layout.from)}</span>
            <span>{formatDuration(span)}</span>
            <span>{formatClock(layout.to)}</span>
          </div>
          <ul className="legend" aria-label="Legend">
            {CLASSES.filter((c) => counts.has(c)).map((c) => (
              <li key={c}>
                <span className={`swatch mark-${c}`} aria-hidden="true" />
                {CLASS_TEXT[c]} <span className="muted">({counts.get(c)})</span>
              </li>
            ))}
          </ul>
          <details className="request-list">
            <summary>List of the {requests.length} requests</summary>
            <ol reversed>
              {[...layout.marks].reverse().map((mark, index) => (
                <li key={`${mark.start}-${index}`}>
                  <time dateTime={mark.request.startedAt}>{formatClock(mark.start)}</time>{' '}
                  <span className={`status-chip mark-${mark.statusClass}`}>{outcome(mark)}</span>{' '}
                  <span className="muted">{formatDuration(mark.request.durationMs)}</span>{' '}
                  <span className="mono">{displayUrl(mark.request.url)}</span>
                </li>
              ))}
            </ol>
          </details>
        </>
      )}
    </div>
  );
}
