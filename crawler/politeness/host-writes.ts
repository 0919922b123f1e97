/**
 * The hosts' write intents: what the book of hosts (host-book.ts and its parts) asks to be stored, as
 * data. They ride the crawler primary's next batch (crawler/coordination/intent-applier.ts writes them in
 * its transaction); the book learns that a row was saved only once the batch committed (`HostBook.saved`).
 */
import type { HostRow } from '../../db/hosts.ts';
import type { SitemapJobRow, SitemapValidators } from '../../db/sitemap-jobs.ts';

/** One write of the book of hosts (see the module comment). */
export type HostWrite =
  /**
   * The host's whole row, as it is when the batch runs (one write per batch however many results it had),
   * stamped `at`, or with the batch's time (a host first seen).
   */
  | { kind: 'save-host'; row: Readonly<HostRow>; at?: number }
  /** The host's robots.txt as kept (compiled rules; the body only from earlier versions). */
  | { kind: 'save-robots'; origin: string; body: string | null; rules: string | null }
  /** A sitemap job queued: stored, so a restart queues it again. */
  | { kind: 'remember-sitemap'; job: SitemapJobRow }
  /** A sitemap job over: a restart forgets it. */
  | { kind: 'forget-sitemap'; url: string }
  /** What a sitemap answered, kept for its next (conditional) read. */
  | { kind: 'sitemap-validators'; url: string; read: SitemapValidators }
  /** Nothing to write: a quiet write queued already now asks for the batch's commit (see HostBook.save). */
  | { kind: 'commit-wanted' };

/** Queues a host write for the next batch; `quiet`: one that does not call for a batch of its own. */
export type QueueHostWrite = (write: HostWrite, quiet?: boolean) => void;
