/**
 * The crawler primary's book of page revisits, a part of the Coordinator: it keeps each fetched page's
 * revisit state by the rule of revisit.ts, picks the pages a periodic refresh asks for, and reads a
 * sitemap's `<lastmod>`s. It prepares no SQL of its own: its queries are db/revisits.ts's and the
 * frontier's, reached through the CrawlStore port (db/crawl-store.ts), and it runs inside the transaction
 * of the batch whose intent calls for it (a page stored or confirmed, a sitemap's lastmods, a seed crawled
 * again: intent-applier.ts, seed-writes.ts).
 */
import type { frontierQueries, FrontierRow } from '../../db/frontier.ts';
import type { revisitQueries } from '../../db/revisits.ts';
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

/** The revisit state queries the book runs (db/revisits.ts, through the CrawlStore port). */
type RevisitQueries = ReturnType<typeof revisitQueries>;

/** Each page's revisit interval, a refresh's choice and a sitemap's `<lastmod>`s (see the module comment). */
export class RevisitBook {
  constructor(
    private readonly q: RevisitQueries,
    private readonly frontier: Pick<
      ReturnType<typeof frontierQueries>,
      'requeueFinishedAt' | 'urlByUrl' | 'requeueFinished'
    >,
    private readonly settings: RevisitSettings,
  ) {}

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
   * whose sitemap vouches for them, spread evenly over a share of the refresh period (revisit-spread.ts).
   * Run inside the write batch (a seed's writes, seed-writes.ts): it reads, then writes.
   */
  refreshDue(seedId: number, maxDepth: number, seedUrl: string, now: number): RefreshChoice {
    const choice: RefreshChoice = { rows: [], notDue: 0, vouched: 0 };
    // This cycle's length: since the seed's last crawl started (revisit.ts counts intervals in cycles); this
    // crawl starts now, and the pages it asks for count their next interval from here (noteVisit).
    const lastStart = this.q.revisitOf(seedUrl)?.checkedAt;
    const cycleMs = lastStart === undefined ? undefined : now - lastStart;
    this.q.markChecked(seedUrl, now);
    const due: Array<{ id: number; url: string }> = [];
    for (const c of this.q.refreshCandidates(seedId, maxDepth)) {
      if (c.url === seedUrl) continue; // the seed's own page: always asked for, by the caller
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
      new URL(seedUrl).origin,
      due.map((c) => c.url),
      now,
      this.settings.refreshMs,
    );
    due.forEach((c, k) => {
      const row = this.frontier.requeueFinishedAt(c.id, at[k]);
      if (row) choice.rows.push(row);
    });
    return choice;
  }

  /**
   * A sitemap's `<lastmod>`s for `urls` (entries of the seed's scope): each is remembered for the next
   * refresh (also for pages not fetched yet), and a page whose lastmod is newer than its last request is
   * queued again now (returned). Run inside the write batch.
   */
  noteSitemap(lastmod: Readonly<Record<string, number>>, urls: readonly string[]): FrontierRow[] {
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
  }
}
