/**
 * A politeness group's lease as one crawler node sees it (issue 29, docs/scaling.md "Many crawler nodes"). Pure:
 * every function takes the time, read by the caller from a monotonic clock (performance.now()); no timers, no I/O.
 *
 * The database decides who owns a group (db/pg/pg-leases.ts: expiry on its clock, an epoch raised at each take),
 * but a web server cannot check an epoch, so the HTTP side is held by timing, on the node's own clock:
 *  - The lease is counted from BEFORE the take or renewal was sent: its local deadline is the send time plus the
 *    lease length, less a margin. The database's expiry is its now() at the statement plus the lease length, and
 *    that now() came after the send, so with clocks that run at sane rates the local deadline falls at least the
 *    margin before the database lets another node take the group. The answer's arrival never counts: a slow answer
 *    only shortens what the node believes it has.
 *  - A request may start only if it ends, at its timeout (every request is aborted at its timeout), with the
 *    margin to spare before the local deadline: now + timeout + margin <= deadline. The margin covers what the
 *    timeout does not: the abort's own latency, and a pause of the process between this check and the send.
 *  - Renewal is due at a fraction of the lease (a third by default), long before the deadline, so a failed one can
 *    be tried again. A renewal that failed, or whose answer came after the old deadline, extends nothing: the lease
 *    is held to its old local deadline, and past it the group is lost for good at this epoch (nothing more is sent
 *    for it; a later take starts a new epoch). The database refuses to renew a lease past its expiry anyway.
 */

/** Defaults in one place (the wiring makes them settings). */
export const LEASE = {
  /** How long a take or renewal holds a group on the database's clock. */
  leaseMs: 90_000,
  /** Kept back from the local deadline, and between a request's timeout and that deadline. */
  marginMs: 5_000,
  /** Renew once this fraction of the lease has passed since the last take or renewal was sent. */
  renewFraction: 1 / 3,
  /**
   * A node's lease loop surveys the cluster (heartbeat, live nodes, groups with work) at least this often, so work
   * new to the cluster and a node that joins or leaves move the fair shares within about a second, not at the next
   * renewal (a third of the lease: 30 s by default). Three short statements a second per node.
   */
  surveyMs: 1_000,
} as const;

/** The timing a node runs its leases with. */
export interface LeaseTiming {
  leaseMs: number;
  marginMs: number;
  renewFraction: number;
}

/** Lease settings that cannot hold a group politely, or a rule used against itself (a bug of the caller). */
export class LeaseRuleError extends Error {
  override readonly name = 'LeaseRuleError';
}

/**
 * Checks lease timing against the request timeout: positive finite lengths, a renewal fraction between 0 and 1,
 * and room for a whole request (timeout plus margin) in what is left of a lease when its renewal falls due, so
 * that a group is never left idle only because a renewal is about to happen.
 */
export function checkLeaseTiming(t: LeaseTiming, requestTimeoutMs: number): LeaseTiming {
  for (const [name, v] of [
    ['leaseMs', t.leaseMs],
    ['marginMs', t.marginMs],
    ['requestTimeoutMs', requestTimeoutMs],
  ] as const) {
    if (!Number.isFinite(v) || v <= 0)
      throw new LeaseRuleError(`lease-rules: ${name} ${v} must be a finite number of milliseconds above 0`);
  }
  if (!(t.renewFraction > 0 && t.renewFraction < 1))
    throw new LeaseRuleError(
      `lease-rules: renewFraction ${t.renewFraction} must be between 0 and 1 (1/3 renews a third into the lease)`,
    );
  const left = t.leaseMs * (1 - t.renewFraction) - t.marginMs;
  if (requestTimeoutMs + t.marginMs > left)
    throw new LeaseRuleError(
      `lease-rules: a lease of ${t.leaseMs} ms renewed at ${t.renewFraction.toFixed(2)} of it leaves ${left} ms before its deadline, too little for a request of ${requestTimeoutMs} ms plus the ${t.marginMs} ms margin; lengthen the lease or shorten the request timeout`,
    );
  return t;
}

/** A lease as the node sees it. */
export interface Lease {
  readonly group: string;
  /** The fencing token its results are written under. */
  readonly epoch: number;
  /** When the take or the last renewal that held was sent (local monotonic ms). */
  readonly sentAt: number;
  /** The local deadline: sentAt + lease - margin. No request runs past it. */
  readonly deadline: number;
  /** Lost for good at this epoch: nothing more is sent for the group under it. */
  readonly lost: boolean;
}

/** The lease a take sent at `sentAt` (local) gave: its deadline counted from the send, never from the answer. */
export function grantLease(group: string, epoch: number, sentAt: number, t: LeaseTiming): Lease {
  return { group, epoch, sentAt, deadline: sentAt + t.leaseMs - t.marginMs, lost: false };
}

/**
 * Whether a request of the group may start at `now`: only while the lease holds and the request, cut at its
 * timeout, ends with `marginMs` to spare before the local deadline.
 */
export function mayStart(lease: Lease, now: number, requestTimeoutMs: number, marginMs: number): boolean {
  return !lease.lost && now + requestTimeoutMs + marginMs <= lease.deadline;
}

/** The lease at `now`: lost once its local deadline has come (whatever the database may still say). */
export function leaseAt(lease: Lease, now: number): Lease {
  return lease.lost || now < lease.deadline ? lease : { ...lease, lost: true };
}

/** When the lease's renewal falls due (local): a fraction of the lease after the last send that held. */
export function renewalDueAt(lease: Lease, t: LeaseTiming): number {
  return lease.sentAt + t.leaseMs * t.renewFraction;
}

/** Whether to send a renewal at `now`: due, and the lease not lost (a lost lease is never renewed). */
export function renewalDue(lease: Lease, now: number, t: LeaseTiming): boolean {
  return !leaseAt(lease, now).lost && now >= renewalDueAt(lease, t);
}

/** What came of a renewal: the database held the lease, said it is not held, or did not answer (an error). */
export type RenewalAnswer = 'held' | 'not-held' | 'failed';

/**
 * The lease after a renewal sent at `sentAt` whose answer came at `now`. Held, and answered before the old
 * deadline: the deadline moves to sentAt + lease - margin (never back). Not held: lost. Failed: unchanged, so
 * held only to the old deadline. Any answer at or after the old deadline finds the lease lost already: a late
 * renewal revives nothing (the node then releases the row rather than let it sit until it expires).
 */
export function afterRenewal(lease: Lease, sentAt: number, answer: RenewalAnswer, now: number, t: LeaseTiming): Lease {
  const current = leaseAt(lease, now);
  if (current.lost || answer === 'failed') return current;
  if (answer === 'not-held') return { ...current, lost: true };
  const deadline = sentAt + t.leaseMs - t.marginMs;
  if (deadline <= current.deadline) return current;
  return { ...current, sentAt, deadline };
}
