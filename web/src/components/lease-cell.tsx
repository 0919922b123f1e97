import type { Domain, DomainsResponse } from '../api.ts';
import { formatSpan } from '../format.ts';

/** A group's lease as a Domains row carries it on PostgreSQL (docs/api.md, Domains). */
export type Lease = NonNullable<Domain['lease']>;

/** How long the owner has held the group, or that its lease ran out and nobody took it yet; '' if unknown. */
export function leaseNote(lease: Lease): string {
  if (lease.expiresInMs <= 0) return `lease expired ${formatSpan(-lease.expiresInMs)} ago`;
  return lease.heldForMs === null ? '' : `since ${formatSpan(lease.heldForMs)} ago`;
}

/**
 * The Owner cell of a Domains row on PostgreSQL: the crawler node that holds the host's politeness group and
 * since when; "—" when no node holds it, "unknown" while PostgreSQL does not answer. The node id is text.
 */
export function LeaseCell({ lease, owners }: { lease: Lease | null; owners: DomainsResponse['owners'] }) {
  return (
    <td role="cell" className="owner-cell" data-label="Owner">
      {owners === 'unknown' ? (
        <span className="muted" title="The database does not answer: who holds this host's group is unknown">
          unknown
        </span>
      ) : lease === null ? (
        <span className="muted" title="No crawler node holds this host's group now (nothing queued, or between owners)">
          —
        </span>
      ) : (
        <>
          <bdi className="owner-node">{lease.node}</bdi>
          {leaseNote(lease) !== '' ? <div className="cell-note owner-since">{leaseNote(lease)}</div> : null}
        </>
      )}
    </td>
  );
}
