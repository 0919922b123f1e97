/**
 * The fake workers of the frontier benchmark's crawl (primary-parts.ts): a transport whose "workers" answer
 * every fetch at once with a non-HTML 200 (finished, nothing stored), so that what is measured is the
 * primary alone; and what the primary sends the server is serialized as IPC does, counting snapshots.
 */
import type { CrawlPrimary } from '../../crawler/coordination/crawl-primary.ts';
import type { PrimaryTransport, WorkerHandle } from '../../crawler/coordination/primary-ports.ts';
import type { FetchJob, FetchResult, PrimaryToServer, PrimaryToWorker } from '../../crawler/common/protocol.ts';
import { fetchResult } from '../../test-support/coordinator-fixtures.ts';
import { clock } from './measure.ts';

/** Fake workers (a PrimaryTransport): every fetch is answered at once (next turn of the event loop) with a non-HTML 200. */
export class InstantWorkers implements PrimaryTransport<WorkerHandle> {
  primary: CrawlPrimary<WorkerHandle> | undefined;
  readonly logs: string[] = [];
  private forked = 0;
  /** Snapshots sent so far, and the last one's hosts and size as IPC sends it. */
  snapshots = 0;
  lastSnapshot = { hosts: 0, bytes: 0 };
  toServer(msg: PrimaryToServer, sent?: () => void): void {
    // Serialized as process.send does (the channel's default 'json' serialization): part of what a message costs the primary.
    const bytes = Buffer.byteLength(`${JSON.stringify(msg)}\n`);
    if (msg.type === 'snapshot') {
      this.snapshots++;
      this.lastSnapshot = { hosts: msg.hosts.length, bytes };
    }
    sent?.();
  }
  toWorker(worker: WorkerHandle, msg: PrimaryToWorker): void {
    if (msg.type !== 'fetch') return;
    setImmediate(() =>
      this.primary?.onWorkerMessage(worker.id, { type: 'done', result: answer(msg.job), sinceEndMs: 0 }),
    );
  }
  forkWorker(): WorkerHandle {
    return { id: ++this.forked, pid: undefined };
  }
  killWorker(worker: WorkerHandle): void {
    setImmediate(() => this.primary?.onWorkerExit(worker.id, 0, 'SIGTERM'));
  }
  log(line: string): void {
    this.logs.push(line);
  }
  exit(): void {}
}

/** A robots job finds no robots.txt (404: allowed); anything else is a non-HTML 200, finished with nothing stored. */
function answer(job: FetchJob): FetchResult {
  const now = clock();
  return fetchResult(job.jobId, {
    startedAt: now,
    endedAt: now,
    status: job.kind === 'robots' ? 404 : 200,
    contentType: 'application/octet-stream',
  });
}
