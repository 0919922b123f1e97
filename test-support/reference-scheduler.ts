/**
 * The scheduler's rules written the straightforward way, as a test oracle and a benchmark baseline:
 * every dispatch scans every host and every queued job, as Lantern's first scheduler did. It keeps
 * the rules of crawler/politeness/scheduler.ts (politeness groups, turns, lanes, backoff, pacing; the
 * full statement is in delay-reason.ts) with none of its data structures, so a differential test can
 * drive both with the same operations and demand the same dispatches in the same order. Pure.
 */
import { politenessGroup, type GroupMode } from '../crawler/politeness/politeness-group.ts';
import {
  nextPace,
  NO_PACE,
  pacingMs,
  PACING,
  type Pace,
  type PacingSettings,
  type ServerSignal,
} from '../crawler/politeness/pacing.ts';
import type { SchedulerJob } from '../crawler/politeness/job-lane.ts';
import type { Dispatch, SchedulerOptions } from '../crawler/politeness/scheduler.ts';

interface Entry<J> {
  job: J;
  seq: number;
  priority: boolean;
}

interface RefHost<J> {
  origin: string;
  group: RefGroup;
  jobs: Entry<J>[];
  inFlight: number;
  lastEnd: number;
  crawlDelayMs: number | undefined;
  backoffUntil: number;
  paused: boolean;
}

interface RefGroup {
  key: string;
  hosts: Array<RefHost<unknown>>;
  inFlight: number;
  lastEnd: number;
  backoffUntil: number;
  pace: Pace;
}

/** The rules, scanned: see the module comment. */
export class ReferenceScheduler<J extends SchedulerJob> {
  private readonly hosts = new Map<string, RefHost<J>>();
  private readonly groups = new Map<string, RefGroup>();
  private readonly grouping: GroupMode;
  private readonly pacing: PacingSettings;
  private seq = 0;

  constructor(
    private defaultDelayMs: number,
    options: SchedulerOptions = {},
  ) {
    this.grouping = options.grouping ?? 'host';
    this.pacing = {
      factor: options.pacing?.factor ?? PACING.factor,
      ceilingMs: options.pacing?.ceilingMs ?? PACING.ceilingMs,
    };
  }

  private host(origin: string): RefHost<J> {
    let h = this.hosts.get(origin);
    if (!h) {
      const key = politenessGroup(origin, this.grouping);
      let group = this.groups.get(key);
      if (!group) {
        group = { key, hosts: [], inFlight: 0, lastEnd: -Infinity, backoffUntil: 0, pace: NO_PACE };
        this.groups.set(key, group);
      }
      h = {
        origin,
        group,
        jobs: [],
        inFlight: 0,
        lastEnd: -Infinity,
        crawlDelayMs: undefined,
        backoffUntil: 0,
        paused: false,
      };
      this.hosts.set(origin, h);
      group.hosts.push(h as RefHost<unknown>);
    }
    return h;
  }

  add(origin: string, job: J, priority = false): void {
    this.host(origin).jobs.push({ job, seq: this.seq++, priority });
  }

  remove(origin: string, predicate: (job: J) => boolean): J[] {
    const h = this.hosts.get(origin);
    if (!h) return [];
    const removed = h.jobs.filter((e) => !e.priority && predicate(e.job));
    h.jobs = h.jobs.filter((e) => !removed.includes(e));
    return removed.map((e) => e.job);
  }

  setDefaultDelay(ms: number): void {
    this.defaultDelayMs = ms;
  }

  setPaused(origin: string, paused: boolean): void {
    this.host(origin).paused = paused;
  }

  setCrawlDelay(origin: string, ms: number | undefined): void {
    this.host(origin).crawlDelayMs = ms;
  }

  setBackoffUntil(origin: string, until: number): void {
    this.host(origin).backoffUntil = until;
  }

  setGroupBackoffUntil(origin: string, until: number): void {
    this.host(origin).group.backoffUntil = until;
  }

  restoreClock(origin: string, lastEnd: number): void {
    const h = this.host(origin);
    h.lastEnd = Math.max(h.lastEnd, lastEnd);
    h.group.lastEnd = Math.max(h.group.lastEnd, lastEnd);
  }

  private gap(h: RefHost<J>): number {
    return Math.max(this.defaultDelayMs, h.crawlDelayMs ?? 0, pacingMs(h.group.pace, this.pacing));
  }

  dueAt(origin: string): number {
    const h = this.host(origin);
    return Math.max(h.group.lastEnd + this.gap(h), h.backoffUntil, h.group.backoffUntil);
  }

  /** When the host's own wait ends, or undefined if it has no job it may run. */
  private turnAt(h: RefHost<J>): number | undefined {
    let earliest = Infinity;
    for (const e of h.jobs) if (e.priority || !h.paused) earliest = Math.min(earliest, Math.max(e.job.notBefore, 0));
    return earliest === Infinity ? undefined : Math.max(h.backoffUntil, earliest, h.lastEnd);
  }

  /** The group's host whose turn it is and when the group may start it, or undefined. */
  private turn(g: RefGroup): { host: RefHost<J>; at: number } | undefined {
    if (g.inFlight > 0) return undefined;
    let best: RefHost<J> | undefined;
    let bestTurn = Infinity;
    for (const h of g.hosts as Array<RefHost<J>>) {
      const t = this.turnAt(h);
      if (t !== undefined && (best === undefined || t < bestTurn)) {
        best = h;
        bestTurn = t;
      }
    }
    if (!best) return undefined;
    return { host: best, at: Math.max(g.lastEnd + this.gap(best), bestTurn, g.backoffUntil) };
  }

  next(now: number): Dispatch<J> | undefined {
    let chosen: { host: RefHost<J>; at: number } | undefined;
    for (const g of this.groups.values()) {
      const t = this.turn(g);
      if (t && t.at <= now && (!chosen || t.at < chosen.at)) chosen = t;
    }
    if (!chosen) return undefined;
    const h = chosen.host;
    const pick = (priority: boolean): Entry<J> | undefined => {
      let best: Entry<J> | undefined;
      for (const e of h.jobs) {
        if (e.priority !== priority || e.job.notBefore > now) continue;
        const k = Math.max(e.job.notBefore, 0);
        if (!best || k < Math.max(best.job.notBefore, 0) || (k === Math.max(best.job.notBefore, 0) && e.seq < best.seq))
          best = e;
      }
      return best;
    };
    const e = pick(true) ?? (h.paused ? undefined : pick(false));
    if (!e) throw new Error(`reference-scheduler: ${h.origin} was due but had no job to run`);
    h.jobs.splice(h.jobs.indexOf(e), 1);
    h.inFlight++;
    h.group.inFlight++;
    return { origin: h.origin, group: h.group.key, job: e.job, priority: e.priority };
  }

  complete(origin: string, endedAt: number, signal?: ServerSignal): void {
    const h = this.host(origin);
    if (h.inFlight > 0) {
      h.inFlight--;
      h.group.inFlight--;
    }
    h.lastEnd = Math.max(h.lastEnd, endedAt);
    h.group.lastEnd = Math.max(h.group.lastEnd, endedAt);
    if (signal) h.group.pace = nextPace(h.group.pace, signal);
  }

  nextWakeAt(): number | undefined {
    let earliest: number | undefined;
    for (const g of this.groups.values()) {
      const t = this.turn(g);
      if (t && (earliest === undefined || t.at < earliest)) earliest = t.at;
    }
    return earliest;
  }

  queuedCount(): number {
    let n = 0;
    for (const h of this.hosts.values()) n += h.jobs.length;
    return n;
  }

  inFlightCount(): number {
    let n = 0;
    for (const h of this.hosts.values()) n += h.inFlight;
    return n;
  }
}
