/**
 * What a worker's result means, as data (result-judge.ts returns it; intent-applier.ts applies it): what
 * the hosts' book and the windows learn at once (`now`: the host's health and backoff must hold before the
 * next dispatch), and the writes the result calls for (`writes`, queued for the next batch).
 */
import type { SitemapValidators } from '../../db/sitemap-jobs.ts';
import type { HostFailure } from '../politeness/host-backoff.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { FetchResult } from '../common/protocol.ts';
import type { WriteIntent } from './write-intents.ts';

/** A page job tried again after a failure: at `earliest`, or when its host's backoff ends if later. */
export interface RetryPlan {
  job: CrawlJob;
  attempts: number;
  earliest: number;
  message: string;
}

/** What the hosts' book (and a host's window) learns from a result at once. */
export type HostDecision =
  /** A robots.txt answered for `job.forOrigin`: its rules loaded; the sitemaps they list are judged then. */
  | { kind: 'robots-read'; job: CrawlJob; result: FetchResult; conditional: boolean }
  /** A request to the host failed: counted, maybe backed off; `retry`: the page is tried again (else it failed). */
  | { kind: 'host-failed'; origin: string; failure: HostFailure; retry?: RetryPlan }
  /** The host answered (not a failure): its error streak and backoff end. */
  | { kind: 'host-answered'; origin: string }
  /** A page of the host counts as fetched. */
  | { kind: 'host-fetched'; origin: string }
  /** An error of the host's row that says nothing of its health (a bad redirect, an HTTP error of a page). */
  | { kind: 'host-error'; origin: string; message: string }
  /** Links of the host fell into a URL trap: its row says so. */
  | { kind: 'host-trap'; origin: string; message: string }
  /** A sitemap job is over. */
  | { kind: 'sitemap-done'; url: string }
  /** Sitemaps queued as jobs of the host's own queue (see HostBook.queueSitemaps). */
  | { kind: 'queue-sitemaps'; origin: string; urls: readonly string[]; hops: number; seedId: number; redirects: number }
  /** A sitemap read in full: what it answered is kept for its next read. */
  | { kind: 'sitemap-read'; url: string; read: SitemapValidators };

/** A result judged: what changes at once, what is written with the next batch, and whether that batch is urgent. */
export interface Judgement {
  now: HostDecision[];
  writes: WriteIntent[];
  /** The writes hold links to a host with nothing queued: worth committing at once (see WriteBatch.takeUrgent). */
  urgent: boolean;
}
