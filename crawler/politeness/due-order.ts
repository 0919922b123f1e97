/**
 * The order a Scheduler (scheduler.ts) hands jobs out in: each host with work it may run in its place among
 * its group's turns (whose own wait ended first), and each group not in flight in its place among the due
 * (when it may next start, within its lease's window). Apart from the Scheduler's rules because it is the one
 * part that keeps the heaps in step with the clocks: every change of a host's queues or clock, or of a group's
 * clock, ends in `refresh` or `refreshGroup`, and nothing else moves a heap. Each costs O(log groups + log
 * hosts of the group); only `reorderAll` touches every group. Pure, as the Scheduler is: no timers, no I/O.
 */
import { IndexedHeap } from './heap.ts';
import type { SchedulerJob } from './job-lane.ts';
import type { GroupState, HostState } from './scheduler-clocks.ts';

/** The groups by when they are due, and each group's hosts by whose turn it is (see the module comment). */
export class DueOrder<J extends SchedulerJob> {
  /** Groups not in flight whose hosts have work, by when they are due. */
  private readonly due = new IndexedHeap<GroupState<J>>(
    (a, b) => a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq),
  );

  /** `gap`: rule 2 of delay-reason.ts, the gap before a request to a host, from the end of its group's last request. */
  constructor(private readonly gap: (h: HostState<J>) => number) {}

  /** The group due first (the earliest `readyAt`, ties by first seen), or undefined if no group is due. */
  first(): GroupState<J> | undefined {
    return this.due.peek();
  }

  /** Takes a group out of the due until its next refresh (its lease allows no more starts). */
  drop(g: GroupState<J>): void {
    this.due.remove(g);
  }

  /** Puts a host whose queues or clock changed back in its place among its group's turns, then its group among the due. */
  refresh(h: HostState<J>): void {
    const turns = h.groupState.turns;
    const earliest = Math.min(h.priority.earliest(), h.paused ? Infinity : h.queue.earliest());
    if (earliest === Infinity) {
      turns.remove(h);
    } else {
      const turnAt = Math.max(h.backoffUntil, earliest, h.lastEnd);
      // Most changes (a job added behind others) move nothing: the heap is left alone then.
      if (turnAt !== h.turnAt || !turns.has(h)) {
        h.turnAt = turnAt;
        turns.update(h);
      }
    }
    this.refreshGroup(h.groupState);
  }

  /** Puts a group whose clock or turn changed back in its place among the due (or out, while in flight or without work). */
  refreshGroup(g: GroupState<J>): void {
    const h = g.turns.peek();
    if (g.inFlight > 0 || !h) {
      this.due.remove(g);
      return;
    }
    const readyAt = Math.max(g.lastEnd + this.gap(h), h.turnAt, g.backoffUntil, g.startsFrom);
    if (readyAt > g.startsUntil) {
      this.due.remove(g); // not within its lease's window: due again when a window is given
      return;
    }
    if (readyAt === g.readyAt && this.due.has(g)) return;
    g.readyAt = readyAt;
    this.due.update(g);
  }

  /** Computes every due group's time again (the default delay or the pacing changed) and re-orders them: O(groups). */
  reorderAll(): void {
    for (const g of this.due.values()) {
      const h = g.turns.peek()!;
      g.readyAt = Math.max(g.lastEnd + this.gap(h), h.turnAt, g.backoffUntil, g.startsFrom);
    }
    this.due.rebuild();
  }
}
