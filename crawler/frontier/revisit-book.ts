/**
 * The crawler primary's book of page revisits, a part of the Coordinator: it keeps each fetched page's
 * revisit state (db/revisits.ts) by the rule of revisit.ts, picks the pages a periodic refresh asks for,
 * and reads a sitemap's `<lastmod>`s. Writes made while a result is applied go into the coordinator's
 * batch; a refresh's and a sitemap's run at once, as the seed's own requeue does (seed-lifecycle.ts).
 */
import type { Database } from 'better-sqlite3';
import type { frontierQueries, FrontierRow } from '../../db/frontier.ts';
import { revisitQueries } from '../../db/revisits.ts';
import {
  afterSitemapSkip,
  afterVisit,
  listedOnly,
  revisitDecision,
  sitemapSaysChanged,
  type RevisitSettings,
  type VisitFinding,
} from './revisit.ts';
import { spreadRevisits } from './revisit-spread.ts';

/** What one refresh of a seed chose (for the log and the tests). */
export interface RefreshChoice {
  /** Rows queued again: the pages due. */
  rows: FrontierRow[];
  /** Pages left alone: not due yet. */
  notDue: number;
  /** Pages skipped because their sitemap vouched for them. */
  vouched: number;
}

export class RevisitBook {
  private readonly q;
  private readonly pickDue: (seedId: number, maxDepth: number, skipUrl: string, now: number) => RefreshChoice;
  private readonly readLastmods: (lastmod: Readonly<Record<string, number>>, urls: readonly string[]) => FrontierRow[];

  constructor(
    db: Database,
    private readonly frontier: ReturnType<typeof frontierQueries>,
    private readonly settings: RevisitSettings,
  ) {
    this.q = revisitQueries(db);
    const pickDue = db.transaction((seedId: number, maxDepth: number, skipUrl: string, now: number): RefreshChoice => {
      const choice: RefreshChoice = { rows: [], notDue: 0, vouched: 0 };
      // This cycle's length: since the seed's last crawl started (revisit.ts counts intervals in cycles); this
      // crawl starts now, and the pages it asks for count their next interval from here (noteVisit).
      const lastStart = this.q.revisitOf(skipUrl)?.checkedAt;
      const cycleMs = lastStart === undefined ? undefined : now - lastStart;
      this.q.markChecked(skipUrl, now);
      const due: Array<{ id: number; url: string }> = [];
      for (const c of this.q.refreshCandidates(seedId, maxDepth)) {
        if (c.url === skipUrl) continue; // the seed's own page: always asked for, by the caller
        const decision = revisitDecision(c.state, now, this.settings, cycleMs);
        if (decision === 'not-due') {
          choice.notDue++;
        } else if (decision === 'sitemap-unchanged') {
          choice.vouched++;
          this.q.saveRevisit(c.url, afterSitemapSkip(c.state!, now, this.settings));
        } else {
          due.push(c);
        }
      }
      // Spread over a share of the period, evenly, not queued for now as one block (revisit-spread.ts).
      const at = spreadRevisits(
        new URL(skipUrl).origin,
        due.map((c) => c.url),
        now,
        this.settings.refreshMs,
      );
      due.forEach((c, k) => {
        const row = this.frontier.requeueFinishedAt(c.id, at[k]);
        if (row) choice.rows.push(row);
      });
      return choice;
    });
    // IMMEDIATE: it reads, then writes; the server writes the same file (see db/open.ts).
    this.pickDue = (seedId, maxDepth, skipUrl, now) => pickDue.immediate(seedId, maxDepth, skipUrl, now);
    this.readLastmods = db.transaction(
      (lastmod: Readonly<Record<string, number>>, urls: readonly string[]): FrontierRow[] => {
        const rows: FrontierRow[] = [];
        for (const url of urls) {
          const ms = lastmod[url];
          if (ms === undefined) continue;
          const st = this.q.revisitOf(url);
          if (!st) {
            this.q.saveRevisit(url, listedOnly(ms)); // not fetched yet: kept for the refresh after its first visit
            continue;
          }
          this.q.noteSitemapLastmod(url, ms);
          if (!sitemapSaysChanged(st, ms)) continue;
          const row = this.frontier.urlByUrl(url);
          const again = row ? this.frontier.requeueFinished(row.id) : undefined;
          if (again) rows.push(again);
        }
        return rows;
      },
    );
  }

  /**
   * A page was fetched at `now` (its text's hash) or confirmed by a 304: its interval grows or shrinks,
   * counted from the start of this crawl of `seedUrl` (its refresh, or its page's first fetch; kept as the
   * seed page's checkedAt). Run inside the write batch.
   */
  noteVisit(url: string, found: VisitFinding, now: number, seedUrl?: string): void {
    const crawlStart = seedUrl === undefined ? now : (this.q.revisitOf(seedUrl)?.checkedAt ?? now);
    this.q.saveRevisit(url, afterVisit(this.q.revisitOf(url), found, now, this.settings, crawlStart));
  }

  /**
   * The periodic refresh of a seed: queues again the pages of it within `maxDepth` that are due at `now`
   * (pages never judged are due), except `seedUrl` (the caller queues the seed's page itself) and those
   * whose sitemap vouches for them, spread evenly over a share of the refresh period (revisit-spread.ts);
   * one transaction.
   */
  refreshDue(seedId: number, maxDepth: number, seedUrl: string, now: number): RefreshChoice {
    return this.pickDue(seedId, maxDepth, seedUrl, now);
  }

  /**
   * A sitemap's `<lastmod>`s for `urls` (entries of the seed's scope): each is remembered for the next
   * refresh (also for pages not fetched yet), and a page whose lastmod is newer than its last request is
   * queued again now (returned).
   */
  noteSitemap(lastmod: Readonly<Record<string, number>>, urls: readonly string[]): FrontierRow[] {
    return this.readLastmods(lastmod, urls);
  }
}
