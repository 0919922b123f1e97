/**
 * Wiring: runs one crawler node's lease keeper (lease-keeper.ts) on a PostgreSQL pool (issue 29, docs/scaling.md
 * "Many crawler nodes"). It registers the node, and at each round heartbeats, reads the live nodes and the groups
 * with work, plans, and sends the keeper's actions one statement at a time (db/pg/pg-leases.ts), reading the
 * monotonic clock just before each send, then hands each answer back to the keeper. A group whose backoff moved
 * since its clock was last written gets its clock written to its lease row at the next round (LeaseBook
 * clocksToRecord), so a node killed with kill -9 hands its backoffs on. One timer: the next round is at
 * the keeper's next renewal or deadline, or at the survey interval, whichever comes first. Stopping releases the
 * groups with their clocks and leaves cleanly, so that another node takes them at once.
 *
 * A failed statement is reported to `onFault` and the loop carries on: a failed renewal holds the leases to their
 * old deadline only, a failed take or survey changes nothing, a failed release drops its groups as lost.
 */
import { performance } from 'node:perf_hooks';
import {
  type GroupWorkLookup,
  groupsWithWork,
  type HeldLease,
  heartbeat,
  leaveCleanly,
  liveNodes,
  registerNode,
  releaseGroups,
  renewLeases,
  takeGroups,
} from '../../db/pg/pg-leases.ts';
import type { Queryable } from '../../db/pg/pool.ts';
import { recordHeldClocks } from '../../db/pg/pg-lease-clocks.ts';
import { clockForStore, type LocalGroupClock } from './lease-clock.ts';
import {
  type ClusterFacts,
  heldAt,
  type KeeperSettings,
  LeaseBook,
  mayDispatch,
  sameStartWindows,
  type StartWindow,
  startWindows,
} from './lease-keeper.ts';
import { checkLeaseTiming, LEASE } from './lease-rules.ts';

/** The timer functions the loop schedules its rounds with (the global ones unless a test pauses them). */
export interface LoopTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** How a lease loop runs. */
export interface LeaseLoopOptions {
  /** The pool of this node (db/pg/pool.ts openPgPool). */
  db: Queryable;
  /** This node's id, unique in the cluster (crawl_nodes.node_id). */
  node: string;
  settings: KeeperSettings;
  /**
   * A round at least this often, to heartbeat and follow the fair share (default: LEASE.surveyMs, or the renewal
   * interval if shorter).
   */
  surveyEveryMs?: number;
  /** A node is live if its heartbeat is this recent (default: the lease length). */
  liveWithinMs?: number;
  /** What the heartbeat says the node is doing. */
  doing?: string;
  /** Every failed statement or round, with the loop carrying on; never dropped. */
  onFault: (err: Error) => void;
  /** The monotonic clock (default performance.now). */
  now?: () => number;
  /**
   * Called just before each plan and before the stop's release, synchronously with it: the scheduler tells the loop
   * (`note`) of its groups' requests, work and clocks, so the plan never releases a group whose request just started.
   */
  beforePlan?: () => void;
  /** The hosts of a group this node knows, named in its release so that queued work others added keeps it wanted. */
  originsOf?: (group: string) => readonly string[];
  /**
   * How a release finds every host of its groups with work in the frontier (pg-leases.ts GroupWorkLookup), those
   * other nodes queued included; without it, the node's belief and `originsOf` alone decide has_work.
   */
  groupWork?: GroupWorkLookup;
  timers?: LoopTimers;
}

/** A loop used out of order (started twice, or after it stopped). */
export class LeaseLoopError extends Error {
  override readonly name = 'LeaseLoopError';
}

const GLOBAL_TIMERS: LoopTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

const key = (leases: readonly HeldLease[]) => leases.map((l) => `${l.group}@${l.epoch}`).join(' ');

/** Runs the lease keeper of one node on one pool (see the module comment). */
export class LeaseLoop {
  /** The keeper's leases, changed in place: a round costs what changed, not the groups held (LeaseBook). */
  private book: LeaseBook;
  private readonly now: () => number;
  private readonly timers: LoopTimers;
  private readonly surveyEveryMs: number;
  private readonly liveWithinMs: number;
  private readonly doing: string;
  private timer: unknown = null;
  private round: Promise<void> | null = null;
  private phase: 'new' | 'running' | 'stopped' = 'new';
  private lastHeld = '';
  /** The book's heldVersion when the held list was last compared (-1: never). */
  private heldVersion = -1;
  private readonly lostListeners = new Set<(lost: HeldLease[]) => void>();
  private readonly changeListeners = new Set<(held: HeldLease[]) => void>();
  private readonly windowListeners = new Set<(leases: StartWindow[]) => void>();
  /** A round was asked for while one ran (`wake`, or a take that took all it asked for): run another at once. */
  private again = false;
  /** The windows last told to the window listeners (null: none told yet). */
  private lastWindows: StartWindow[] | null = null;
  /** The book's version when the windows were last compared (-1: never). */
  private windowsVersion = -1;

  constructor(private readonly o: LeaseLoopOptions) {
    checkLeaseTiming(o.settings.timing, o.settings.requestTimeoutMs);
    this.book = new LeaseBook(o.settings);
    this.now = o.now ?? (() => performance.now());
    this.timers = o.timers ?? GLOBAL_TIMERS;
    this.surveyEveryMs =
      o.surveyEveryMs ?? Math.min(LEASE.surveyMs, o.settings.timing.leaseMs * o.settings.timing.renewFraction);
    this.liveWithinMs = o.liveWithinMs ?? o.settings.timing.leaseMs;
    this.doing = o.doing ?? 'crawling';
  }

  /** Calls `fn` with the leases lost (deadline passed, not held, or a release unsure): drop their queued jobs. */
  onLost(fn: (lost: HeldLease[]) => void): void {
    this.lostListeners.add(fn);
  }

  /** Calls `fn` with the held leases each time they change (a take, a loss, a release, the stop). */
  onChange(fn: (held: HeldLease[]) => void): void {
    this.changeListeners.add(fn);
  }

  /**
   * Calls `fn`, synchronously after every change (a plan, each answer applied, the stop) that moved a window, with
   * every lease held and its start limit (lease-keeper.ts startWindows): what the scheduler may dispatch.
   */
  onLeases(fn: (leases: StartWindow[]) => void): void {
    this.windowListeners.add(fn);
  }

  /** Runs a round now, or right after the running one (work appeared for groups this node may take). */
  wake(): void {
    if (this.phase !== 'running') return;
    if (this.round !== null) {
      this.again = true;
      return;
    }
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.runRound();
  }

  /** Registers the node and runs the first round; rounds then follow on their own until stop(). */
  async start(): Promise<void> {
    if (this.phase !== 'new') throw new LeaseLoopError(`lease-loop: node ${this.o.node} was already started`);
    this.phase = 'running';
    await registerNode(this.o.db, this.o.node, this.doing);
    this.runRound();
    await this.round;
  }

  /** The leases held now (not lost at this moment, even if no round has run since the deadline). */
  held(): HeldLease[] {
    return heldAt(this.book, this.now());
  }

  /** The leases a request may start under now (lease-rules.ts mayStart). */
  dispatchable(): HeldLease[] {
    return mayDispatch(this.book, this.now());
  }

  /**
   * What the scheduler knows of a held group: a request running or not, work left or not, its clock. Given to the
   * keeper at once; a note that says what it has already changes nothing (LeaseBook.note), so the notes of every
   * held group before each plan cost a comparison each, no copy.
   */
  note(group: string, facts: { inFlight?: boolean; hasWork?: boolean; clock?: LocalGroupClock }): void {
    this.book.note(group, facts);
  }

  /**
   * Stops the rounds, waits for the one running, releases the held groups not in flight with their clocks, and
   * leaves cleanly (every group still held is freed, due a gap from now). Throws if leaving failed: the groups
   * then expire on the database's clock.
   */
  async stop(): Promise<void> {
    if (this.phase === 'stopped') return;
    const wasRunning = this.phase === 'running';
    this.phase = 'stopped';
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    await this.round;
    if (!wasRunning) return;
    this.o.beforePlan?.();
    const now = this.now();
    const idle = [...this.book.leases.values()].filter((k) => !k.inFlight && now < k.lease.deadline);
    if (idle.length > 0) {
      const sentAt = this.now();
      try {
        await releaseGroups(
          this.o.db,
          this.o.node,
          idle.map((k) => ({
            group: k.lease.group,
            epoch: k.lease.epoch,
            clock: clockForStore(k.clock, sentAt),
            hasWork: k.hasWork,
            origins: this.o.originsOf?.(k.lease.group),
          })),
          this.o.groupWork,
        );
      } catch (err) {
        this.o.onFault(err as Error); // leaveCleanly below frees them anyway, due a gap from now
      }
    }
    this.book = new LeaseBook(this.o.settings);
    this.windowsVersion = -1;
    this.heldVersion = -1;
    this.announce();
    this.windows();
    await leaveCleanly(this.o.db, this.o.node);
  }

  /** Starts a round unless one is running or the loop stopped; schedules the next when it ends. */
  private runRound(): void {
    if (this.phase !== 'running' || this.round !== null) return;
    this.timer = null;
    const started = this.now();
    this.round = this.roundOnce()
      .catch((err: Error) => this.o.onFault(err))
      .finally(() => {
        this.round = null;
        if (this.phase !== 'running') return;
        const at = this.again ? started : Math.min(this.book.wakeAt, started + this.surveyEveryMs);
        this.again = false;
        this.timer = this.timers.setTimeout(() => this.runRound(), Math.max(0, at - this.now()));
      });
  }

  /** Runs `work`, answering null (and reporting the fault) when it throws. */
  private async attempt<T>(work: () => Promise<T>): Promise<T | null> {
    try {
      return await work();
    } catch (err) {
      this.o.onFault(err as Error);
      return null;
    }
  }

  /** One round: heartbeat and survey, plan, then each action as one statement, its answer applied. */
  private async roundOnce(): Promise<void> {
    const { db, node } = this.o;
    const facts = await this.attempt<ClusterFacts>(async () => {
      if (!(await heartbeat(db, node, this.doing))) await registerNode(db, node, this.doing);
      const live = await liveNodes(db, this.liveWithinMs);
      return { liveNodes: live.length, groupsWithWork: await groupsWithWork(db) };
    });
    this.o.beforePlan?.();
    const { lost, renew, release, take } = this.book.plan(this.now(), facts);
    this.windows(); // before any await: a group being released starts no request from here on
    this.lose(lost);
    if (renew.length > 0) {
      const sentAt = this.now();
      const held = await this.attempt(() => renewLeases(db, node, renew, this.o.settings.timing.leaseMs));
      const renewLost = this.book.renewed(renew, sentAt, this.now(), held);
      this.windows();
      this.lose(renewLost);
    }
    const clocks = this.book.clocksToRecord();
    if (clocks.length > 0) {
      const sentAt = this.now();
      const written = await this.attempt(() =>
        recordHeldClocks(
          db,
          node,
          clocks.map((c) => ({ group: c.group, epoch: c.epoch, clock: clockForStore(c.clock, sentAt) })),
        ),
      );
      if (written === null) this.book.recordFailed(clocks);
    }
    if (release.length > 0) {
      const sentAt = this.now();
      const released = await this.attempt(() =>
        releaseGroups(
          db,
          node,
          release.map((r) => ({
            group: r.group,
            epoch: r.epoch,
            clock: clockForStore(r.clock, sentAt),
            hasWork: r.hasWork,
            origins: this.o.originsOf?.(r.group),
          })),
          this.o.groupWork,
        ),
      );
      const releaseLost = this.book.released(release, released);
      this.windows();
      this.lose(releaseLost);
    }
    if (take > 0) {
      const sentAt = this.now();
      const rows = await this.attempt(() => takeGroups(db, node, take, this.o.settings.timing.leaseMs));
      this.book.took(sentAt, this.now(), rows);
      this.windows();
      if (rows !== null && rows.length >= take) this.again = true; // took all it asked for: more may be waiting
    }
    this.announce();
  }

  /**
   * Tells the window listeners of the leases and their start limits now, unless they are those told last (a round
   * that changed nothing: applying every window again costs the scheduler a walk of every group, 10,000 a second).
   * Not even listed when no lease changed since (the book's version) and none can have passed its deadline (before
   * the book's `wakeAt`): a round with nothing due visits no group here.
   */
  private windows(): void {
    if (this.windowListeners.size === 0) return;
    const now = this.now();
    if (this.windowsVersion === this.book.version && now < this.book.wakeAt) return;
    this.windowsVersion = this.book.version;
    const leases = startWindows(this.book, now);
    if (this.lastWindows !== null && sameStartWindows(this.lastWindows, leases)) return;
    this.lastWindows = leases;
    for (const fn of this.windowListeners) fn(leases);
  }

  /** Tells the lost listeners, then the change listeners. */
  private lose(lost: HeldLease[]): void {
    if (lost.length === 0) return;
    for (const fn of this.lostListeners) fn(lost);
    this.announce();
  }

  /**
   * Tells the change listeners when the held leases differ from the last told; lists them only if a group, epoch or
   * release changed (the book's heldVersion: a renewal's new deadlines change none) or a lease may have passed its
   * deadline (the book's `wakeAt`).
   */
  private announce(): void {
    if (this.heldVersion === this.book.heldVersion && this.now() < this.book.wakeAt) return;
    this.heldVersion = this.book.heldVersion;
    const held = this.held();
    const now = key(held);
    if (now === this.lastHeld) return;
    this.lastHeld = now;
    for (const fn of this.changeListeners) fn(held);
  }
}
