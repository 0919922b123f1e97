/**
 * The crawler primary's book of page revisits, a part of the Coordinator: it keeps each fetched page's
 * revisit state by the rule of revisit.ts, picks the pages a periodic refresh asks for, and reads a
 * sitemap's `<lastmod>`s. It prepares no SQL of its own: its queries are the revisits' and the
 * frontier's of the CrawlStore port (db/crawl-store.ts), given as the transaction's `tx`, and it runs inside the transaction
 * of the batch whose intent calls for it (a page stored or confirmed, a sitemap's lastmods, a seed crawled
 * again: intent-applier.ts, seed-writes.ts).
 */
import type { FrontierRow } from '../../db/frontier.ts';
import type { CrawlQueries } from '../../db/crawl-store.ts';
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

/** The queries the book runs: revisits' and the frontier's requeues (a transaction's, db/crawl-store.ts). */
export type RevisitTx = {
  revisits: CrawlQueries['revisits'];
  frontier: Pick<CrawlQueries['frontier'], 'requeueFinishedAt' | 'urlByUrl' | 'requeueFinished'>;
};

/** Each page's revisit interval, a refresh's choice and a sitemap's `<lastmod>`s (see the module comment). */
export class RevisitBook {
  constructor(private readonly settings: RevisitSettings) {}

  /**
   * A page was fetched at `now` (its text's hash) or confirmed by a 304: its interval grows or shrinks,
   * counted from the start of this crawl of `seedUrl` (its refresh, or its page's first fetch; kept as the
   * seed page's checkedAt). Run inside the write batch.
   */
  async noteVisit(tx: RevisitTx, url: string, found: VisitFinding, now: number, seedUrl?: string): Promise<void> {
    const q = tx.revisits;
    const crawlStart = seedUrl === undefined ? now : ((await q.revisitOf(seedUrl))?.checkedAt ?? now);
    await q.saveRevisit(url, afterVisit(await q.revisitOf(url), found, now, this.settings, crawlStart));
  }

  /**
   * The periodic refresh of a seed: queues again the pages of it within `maxDepth` that are due at `now`
   * (pages never judged are due), except `seedUrl` (the caller queues the seed's page itself) and those
   * whose sitemap vouches for them, spread evenly over a share of the refresh period (revisit-spread.ts).
   * Run inside the write batch (a seed's writes, seed-writes.ts): it reads, then writes.
   */
  async refreshDue(
    tx: RevisitTx,
    seedId: number,
    maxDepth: number,
    seedUrl: string,
    now: number,
  ): Promise<RefreshChoice> {
    const q = tx.revisits;
    const choice: RefreshChoice = { rows: [], notDue: 0, vouched: 0 };
    // This cycle's length: since the seed's last crawl started (revisit.ts counts intervals in cycles); this
    // crawl starts now, and the pages it asks for count their next interval from here (noteVisit).
    const lastStart = (await q.revisitOf(seedUrl))?.checkedAt;
    const cycleMs = lastStart === undefined ? undefined : now - lastStart;
    await q.markChecked(seedUrl, now);
    const due: Array<{ id: number; url: string }> = [];
    for (const c of await q.refreshCandidates(seedId, maxDepth)) {
      if (c.url === seedUrl) continue; // the seed's own page: always asked for, by the caller
      const decision = revisitDecision(c.state, now, this.settings, cycleMs);
      if (decision === 'not-due') {
        choice.notDue++;
      } else if (decision === 'sitemap-unchanged') {
        choice.vouched++;
        await q.saveRevisit(c.url, afterSitemapSkip(c.state!, now, this.settings));
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
    for (const [k, c] of due.entries()) {
      const row = await tx.frontier.requeueFinishedAt(c.id, at[k]);
      if (row) choice.rows.push(row);
    }
    return choice;
  }

  /**
   * A sitemap's `<lastmod>`s for `urls` (entries of the seed's scope): each is remembered for the next
   * refresh (also for pages not fetched yet), and a page whose lastmod is newer than its last request is
   * queued again now (returned). Run inside the write batch.
   */
  async noteSitemap(
    tx: RevisitTx,
    lastmod: Readonly<Record<string, number>>,
    urls: readonly string[],
  ): Promise<FrontierRow[]> {
    const q = tx.revisits;
    const rows: FrontierRow[] = [];
    for (const url of urls) {
      const ms = lastmod[url];
      if (ms === undefined) continue;
      const st = await q.revisitOf(url);
      if (!st) {
        await q.saveRevisit(url, listedOnly(ms)); // not fetched yet: kept for the refresh after its first visit
        continue;
      }
      await q.noteSitemapLastmod(url, ms);
      if (!sitemapSaysChanged(st, ms)) continue;
      const row = await tx.frontier.urlByUrl(url);
      const again = row ? await tx.frontier.requeueFinished(row.id) : undefined;
      if (again) rows.push(again);
    }
    return rows;
  }
}
