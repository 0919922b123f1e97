/**
 * What the crawler primary's memory learns once a batch's transaction committed. While the transaction
 * runs, the writes of its intents (intent-applier.ts, seed-writes.ts, link-intake.ts) only gather what
 * they did in a BatchEffects (crawler/frontier/batch-effects.ts); once it committed, this applies it: the
 * link intake's budgets keep what it counted, hosts' notes, removed seeds' rows leave the
 * windows, rows queued go to their hosts' windows (a new host gets its row and robots.txt job first), seeds
 * taken in read their host's sitemaps, the next chunk of a long seed change is queued. A transaction that
 * failed never gets here: its BatchEffects is dropped, and memory was not touched.
 */
import type { FrontierRow } from '../../db/frontier.ts';
import type { HostBook } from '../politeness/host-book.ts';
import type { LinkIntake } from '../frontier/link-intake.ts';
import type { SeedBook, SeedInfo } from '../frontier/seed-book.ts';
import type { FrontierWindow } from '../frontier/frontier-window.ts';
import type { BatchEffects } from '../frontier/batch-effects.ts';
import type { ResultJudge } from './result-judge.ts';
import type { WriteBatch } from './write-batch.ts';
import type { WriteIntent } from './write-intents.ts';

/** What a committed batch changes in memory: the Coordinator's parts. */
export interface CommitTargets {
  batch: WriteBatch<WriteIntent>;
  window: FrontierWindow;
  hosts: HostBook;
  seeds: SeedBook;
  intake: LinkIntake;
  /** Asked which sitemaps a seed's host lists are read for it (ResultJudge.sitemapsListed). */
  judge: Pick<ResultJudge, 'sitemapsListed'>;
}

/** Applies a committed batch's effects to memory (see the module comment). */
export class CommitEffects {
  constructor(private readonly targets: CommitTargets) {}

  /** The transaction that gathered `fx` committed: memory learns what it did. */
  apply(fx: BatchEffects): void {
    const { intake, hosts, window, seeds, batch } = this.targets;
    intake.committed();
    for (const n of fx.hostNotes) {
      if (n.kind === 'error') hosts.noteError(n.origin, n.message);
      else if (n.kind === 'trap') hosts.noteTrap(n.origin, n.message);
      else hosts.noteBudgetSpent(n.origin, n.message);
    }
    for (const id of fx.revived) if (seeds.revive(id)) window.revived(id);
    const perOrigin = new Map<string, number>();
    for (const { seedId, rows } of fx.deleted) {
      for (const r of rows) perOrigin.set(r.origin, (perOrigin.get(r.origin) ?? 0) + 1);
      window.deleted(seedId, rows);
    }
    intake.budget.forget([...perOrigin].map(([origin, n]) => ({ origin, n })));
    for (const { seedId, origin } of fx.counted) {
      intake.budget.record(origin);
      intake.hostBudget.record(seedId, origin);
    }
    for (const row of fx.queued) this.schedule(row);
    for (const seed of fx.sitemapsOf) this.readSitemaps(seed);
    for (const id of fx.gone) {
      seeds.forgetRemoved(id);
      window.forgetSeed(id);
      intake.hostBudget.forgetSeed(id);
    }
    for (const w of fx.followUps) batch.push(w);
    if (fx.urgent) batch.markUrgent();
  }

  /** A row committed as queued: its host is seen (a new one gets its row and robots.txt job), the row joins its window. */
  private schedule(row: FrontierRow): void {
    this.targets.hosts.see(row.origin);
    this.targets.window.arrived(row);
  }

  /** Queues the sitemaps the seed's host lists, read for this seed (if its robots.txt is known already). */
  private readSitemaps(seed: SeedInfo): void {
    const { hosts, judge } = this.targets;
    const listed = judge.sitemapsListed(seed.origin, hosts.sitemapsOf(seed.origin), 0, seed.id);
    if (listed) hosts.queueSitemaps(listed.origin, listed.urls, listed.hops, listed.seedId, listed.redirects);
  }
}
