/**
 * crawlee's CheerioCrawler held to at most one request in flight per host, as Lantern always is.
 * crawlee has no such setting: `maxConcurrency` bounds the whole crawler, `sameDomainDelaySecs` spaces
 * request starts per registrable domain (tldts's getDomain, which is null for 127.x addresses, so it
 * never applies to the loopback sites) without waiting for the earlier response, and one crawler per
 * host would be many crawlers. So this subclass uses the hook `sameDomainDelaySecs` itself uses:
 * `delayRequest` runs when a task has taken a request from the queue, before the fetch; here it takes
 * the request's host (host:port) in a HostGate or parks the request. The host is released when the
 * whole task has ended (response read, handler run, request marked handled or given back for a retry),
 * and the release puts one parked request of that host back at the head of the queue.
 * Used only by the benchmark (bench/crawl/crawlee-child.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { CheerioCrawler, type Request } from '@crawlee/cheerio';
import { HostGate } from './host-gate.ts';

/** What delayRequest receives as its source: all this needs of it is giving a request back. */
interface Reclaimer {
  reclaimRequest(request: Request, options?: { forefront?: boolean }): Promise<unknown>;
}

/** The host a task holds, set by delayRequest inside the task and read when the task ends. */
interface TaskHold {
  host?: string;
  holder?: string;
}

/** A CheerioCrawler that never has two requests to one host in flight (see the file comment). */
export class OnePerHostCheerioCrawler extends CheerioCrawler {
  private readonly gate = new HostGate<{ request: Request; source: Reclaimer }>();
  private readonly task = new AsyncLocalStorage<TaskHold>();

  protected override delayRequest(request: Request, source: Reclaimer): boolean {
    const hold = this.task.getStore();
    if (hold === undefined) throw new Error('crawlee-one-per-host: delayRequest was called outside a task');
    const host = new URL(request.url).host;
    if (this.gate.tryAcquire(host, request.uniqueKey)) {
      hold.host = host;
      hold.holder = request.uniqueKey;
      return false;
    }
    this.gate.park(host, { request, source });
    return true;
  }

  protected override async _runTaskFunction(): Promise<void> {
    const hold: TaskHold = {};
    try {
      await this.task.run(hold, () => super._runTaskFunction());
    } finally {
      if (hold.host !== undefined && hold.holder !== undefined) {
        const next = this.gate.release(hold.host, hold.holder);
        if (next) await next.source.reclaimRequest(next.request, { forefront: true });
      }
    }
  }

  /** Requests parked now, waiting for their host (0 at the end of a complete crawl). */
  parkedRequests(): number {
    return this.gate.parkedCount();
  }
}
