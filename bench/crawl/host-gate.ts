/**
 * At most one holder per host: what holds crawlee's CheerioCrawler to one request in flight per host
 * in the side-by-side (crawlee has no such setting; see crawlee-one-per-host.ts). Pure bookkeeping:
 * a task asks for its host, gets it or parks its item, and each release hands back at most one
 * parked item of that host to be queued again, so a parked request waits for a release, never for a timer.
 */
export class HostGate<T> {
  private readonly holders = new Map<string, string>();
  private readonly parked = new Map<string, T[]>();

  /** Takes `host` for `holder` if no one holds it; false when someone does (then park the item). */
  tryAcquire(host: string, holder: string): boolean {
    if (this.holders.has(host)) return false;
    this.holders.set(host, holder);
    return true;
  }

  /** Keeps `item` until the host is released. */
  park(host: string, item: T): void {
    const list = this.parked.get(host);
    if (list) list.push(item);
    else this.parked.set(host, [item]);
  }

  /**
   * Frees `host` if `holder` holds it, and returns the first item parked for it (to be queued again),
   * or undefined. A release by anyone but the holder changes nothing, so releasing twice is harmless.
   */
  release(host: string, holder: string): T | undefined {
    if (this.holders.get(host) !== holder) return undefined;
    this.holders.delete(host);
    const list = this.parked.get(host);
    const next = list?.shift();
    if (list && list.length === 0) this.parked.delete(host);
    return next;
  }

  /** Hosts held now (for checks). */
  held(): number {
    return this.holders.size;
  }

  /** Items parked now, over all hosts. */
  parkedCount(): number {
    let n = 0;
    for (const list of this.parked.values()) n += list.length;
    return n;
  }
}
