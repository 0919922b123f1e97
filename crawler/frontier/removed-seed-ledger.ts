/**
 * The removed seeds' ledger of the frontier's windows (frontier-window.ts): on which hosts each seed's jobs
 * were entered, on which hosts rows of a removed seed were passed over or deleted, and how many rows and jobs
 * of removed seeds the current step has passed over.
 *
 * Rows of removed seeds are not entered in the windows (their deletion follows in chunks, seed-writes.ts);
 * should such a seed come back, the hosts where its rows were passed over read their queue again from the
 * start, and the hosts where its rows were deleted take their count from the database again. Passing over
 * costs, so the rows and jobs passed over are counted, and one dispatch call, or one flush's refills, stops
 * after WINDOW.passOverPerStep of them (`resetPassedOver`, `passOverSpent`). The ledger only keeps account:
 * the window acts on what it hands back after each commit (`takeDeleted`, `takeRecounts`, `takeRewinds`).
 */
import type { DroppedUrl } from '../../db/frontier.ts';
import type { HostWindow } from './host-window.ts';

/** The deleted rows per host: how many leave each host's count of URLs waiting, and which entries leave each window. */
export interface DeletedRows {
  leaving: Map<HostWindow, number>;
  /** In the order their hosts' first entry was deleted. */
  entries: Map<HostWindow, Set<number>>;
}

/** The per-seed host sets and the pass-over budget behind a FrontierWindow's removed seeds (see the module comment). */
export class RemovedSeedLedger {
  /** Per seed, the hosts where jobs of it were entered (some may have left since): what `seedRemoved` looks through. */
  private readonly hostsBySeed = new Map<number, Set<HostWindow>>();
  /** Per removed seed, the hosts where rows of it were passed over, and those where rows of it were deleted. */
  private readonly passedOver = new Map<number, Set<HostWindow>>();
  private readonly deletedOn = new Map<number, Set<HostWindow>>();
  /** Rows of removed seeds deleted by a committed batch, to leave the windows with the next commit. */
  private dropped: DroppedUrl[] = [];
  /** Hosts that read their queue again from its start after the next commit (a removed seed came back). */
  private rewinds = new Set<HostWindow>();
  /** Hosts whose count is read again from the database after the next commit. */
  private recounts = new Set<HostWindow>();
  /** Rows and jobs of removed seeds passed over since `resetPassedOver`. */
  private passed = 0;

  /** `passOverPerStep`: WINDOW.passOverPerStep, or a test's own. */
  constructor(private readonly passOverPerStep: number) {}

  /** A job of seed `seedId` was entered in host `h`'s window. */
  entered(seedId: number, h: HostWindow): void {
    let hosts = this.hostsBySeed.get(seedId);
    if (!hosts) this.hostsBySeed.set(seedId, (hosts = new Set()));
    hosts.add(h);
  }

  /** The hosts where jobs of seed `seedId` were entered, forgotten here (the seed was removed). */
  takeHostsOf(seedId: number): ReadonlySet<HostWindow> {
    const hosts = this.hostsBySeed.get(seedId);
    this.hostsBySeed.delete(seedId);
    return hosts ?? new Set();
  }

  /** A row or job of removed seed `seedId` was passed over on host `h`: counted, and remembered should it come back. */
  passOver(seedId: number, h: HostWindow): void {
    this.passed++;
    let hosts = this.passedOver.get(seedId);
    if (!hosts) this.passedOver.set(seedId, (hosts = new Set()));
    hosts.add(h);
  }

  /** Rows of removed seed `seedId` were deleted (by a batch that committed): they leave the windows with the next commit. */
  deleted(seedId: number, rows: readonly DroppedUrl[], hostOf: (origin: string) => HostWindow | undefined): void {
    let hosts = this.deletedOn.get(seedId);
    if (!hosts) this.deletedOn.set(seedId, (hosts = new Set()));
    for (const r of rows) {
      this.dropped.push(r);
      const h = hostOf(r.origin);
      if (h) hosts.add(h);
    }
  }

  /** A removed seed came back before its rows were all deleted: hosts that passed its rows over read again. */
  revived(seedId: number): void {
    for (const h of this.passedOver.get(seedId) ?? []) this.rewinds.add(h);
    this.passedOver.delete(seedId);
    for (const h of this.deletedOn.get(seedId) ?? []) this.recounts.add(h);
    this.deletedOn.delete(seedId);
  }

  /** A removed seed's rows are all deleted: nothing of it is left to read again, its hosts are counted again. */
  forget(seedId: number): void {
    this.passedOver.delete(seedId);
    this.hostsBySeed.delete(seedId);
    for (const h of this.deletedOn.get(seedId) ?? []) this.recounts.add(h);
    this.deletedOn.delete(seedId);
  }

  /** Starts counting the rows and jobs of removed seeds passed over (by one dispatch call, say). */
  resetPassedOver(): void {
    this.passed = 0;
  }

  /** Whether passOverPerStep rows and jobs of removed seeds were passed over since `resetPassedOver`. */
  get passOverSpent(): boolean {
    return this.passed >= this.passOverPerStep;
  }

  /** How many more rows and jobs of removed seeds the step may pass over (0 once spent). */
  get passOverLeft(): number {
    return Math.max(0, this.passOverPerStep - this.passed);
  }

  /** Whether the next commit has work to do for removed seeds (deleted rows to take out, hosts to read again). */
  get pending(): boolean {
    return this.rewinds.size + this.recounts.size + this.dropped.length > 0;
  }

  /**
   * The deleted rows since the last call, per host that has them: an entry leaves the window, and a row that
   * is an entry or still queued leaves the count (rows of hosts without a window are left out).
   */
  takeDeleted(hostOf: (origin: string) => HostWindow | undefined): DeletedRows {
    const rows = this.dropped;
    this.dropped = [];
    const out: DeletedRows = { leaving: new Map(), entries: new Map() };
    for (const r of rows) {
      const h = hostOf(r.origin);
      if (!h) continue;
      const entry = h.entries.has(r.id);
      if (entry || r.state === 'queued') out.leaving.set(h, (out.leaving.get(h) ?? 0) + 1);
      if (!entry) continue;
      let ids = out.entries.get(h);
      if (!ids) out.entries.set(h, (ids = new Set()));
      ids.add(r.id);
    }
    return out;
  }

  /** The hosts to count again from the database, since the last call. */
  takeRecounts(): ReadonlySet<HostWindow> {
    const hosts = this.recounts;
    this.recounts = new Set();
    return hosts;
  }

  /** The hosts to read again from the start of their queue, since the last call. */
  takeRewinds(): ReadonlySet<HostWindow> {
    const hosts = this.rewinds;
    this.rewinds = new Set();
    return hosts;
  }
}
