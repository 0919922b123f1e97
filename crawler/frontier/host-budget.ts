/**
 * The per-seed host budget (CRAWL_MAX_HOSTS_PER_SEED): a site answering on every name (wildcard DNS:
 * a1.example.org, a2.example.org, ...) must not take a seed's crawl to endless hosts, each costing a
 * robots.txt fetch, a row in Domains and memory in the primary. A seed's hosts are the distinct origins
 * of the URLs it owns; once it has `limit` of them, links to further hosts are not followed and counted
 * as refused. Like UrlBudget (admission.ts), what a transaction adds stays provisional until `commit()`,
 * and `rollback()` forgets it, so the figures always match what is stored. Pure: no I/O, no clock.
 */

/** The links to further hosts a seed did not follow: how many, and the last host one led to. */
export interface HostRefusals {
  count: number;
  example: string | null;
  /** When the last one was refused (ms). */
  at: number | null;
}

/** A seed's figures as they are written (db/seed-hosts.ts). */
export interface SeedHostFigures {
  seedId: number;
  hosts: number;
  refused: HostRefusals;
}

const NONE: HostRefusals = { count: 0, example: null, at: null };

export class HostBudget {
  private readonly hosts = new Map<number, Set<string>>();
  private pendingHosts = new Map<number, Set<string>>();
  private readonly refused = new Map<number, HostRefusals>();
  private pendingRefused = new Map<number, HostRefusals>();
  /** Seeds whose committed figures changed outside a transaction (a seed's own URL) and are not written yet. */
  private readonly unsaved = new Set<number>();

  constructor(readonly limit: number) {}

  /** Sets the stored state (at start): which hosts each seed's URLs are on, and its refusals so far. */
  load(
    pairs: Iterable<{ seedId: number; origin: string }>,
    refusals: Iterable<{ seedId: number } & HostRefusals>,
  ): void {
    for (const { seedId, origin } of pairs) this.setOf(this.hosts, seedId).add(origin);
    for (const { seedId, count, example, at } of refusals) this.refused.set(seedId, { count, example, at });
  }

  /** Hosts of the seed, committed or provisional. */
  count(seedId: number): number {
    return (this.hosts.get(seedId)?.size ?? 0) + (this.pendingHosts.get(seedId)?.size ?? 0);
  }

  /** Whether the seed may own a URL on `origin`: one of its hosts already, or it has room for another. */
  hasRoom(seedId: number, origin: string): boolean {
    return this.knows(seedId, origin) || this.count(seedId) < this.limit;
  }

  /** Counts a URL of the seed stored outside a transaction (the seed's own URL). */
  record(seedId: number, origin: string): void {
    if (this.knows(seedId, origin)) return;
    this.setOf(this.hosts, seedId).add(origin);
    this.unsaved.add(seedId);
  }

  /** Counts a URL of the seed on `origin` (provisionally, until commit). */
  add(seedId: number, origin: string): void {
    if (!this.knows(seedId, origin)) this.setOf(this.pendingHosts, seedId).add(origin);
  }

  /** A link of the seed to `host`, a host past its budget, was not followed at `now` (provisionally, until commit). */
  refuse(seedId: number, host: string, now: number): void {
    const before = this.refusals(seedId);
    this.pendingRefused.set(seedId, { count: before.count + 1, example: host, at: now });
  }

  /** The seed's refusals so far, committed or provisional. */
  refusals(seedId: number): HostRefusals {
    return this.pendingRefused.get(seedId) ?? this.refused.get(seedId) ?? NONE;
  }

  /** The figures of every seed that changed since they were last written (to write in the current transaction). */
  changed(): SeedHostFigures[] {
    const ids = new Set([...this.unsaved, ...this.pendingHosts.keys(), ...this.pendingRefused.keys()]);
    return [...ids].map((seedId) => ({ seedId, hosts: this.count(seedId), refused: this.refusals(seedId) }));
  }

  /** A removed seed's URLs are gone: its hosts and refusals are forgotten. */
  forgetSeed(seedId: number): void {
    this.hosts.delete(seedId);
    this.refused.delete(seedId);
    this.unsaved.delete(seedId);
  }

  /** The transaction that added the provisional hosts and refusals committed (and wrote `changed()`). */
  commit(): void {
    for (const [seedId, origins] of this.pendingHosts) for (const o of origins) this.setOf(this.hosts, seedId).add(o);
    for (const [seedId, r] of this.pendingRefused) this.refused.set(seedId, r);
    this.pendingHosts = new Map();
    this.pendingRefused = new Map();
    this.unsaved.clear();
  }

  /** The transaction failed: its hosts and refusals were not stored (what was unsaved stays so). */
  rollback(): void {
    this.pendingHosts = new Map();
    this.pendingRefused = new Map();
  }

  /** Whether `origin` is one of the seed's hosts already, committed or provisional. */
  knows(seedId: number, origin: string): boolean {
    return this.hosts.get(seedId)?.has(origin) === true || this.pendingHosts.get(seedId)?.has(origin) === true;
  }

  private setOf(map: Map<number, Set<string>>, seedId: number): Set<string> {
    let set = map.get(seedId);
    if (!set) map.set(seedId, (set = new Set()));
    return set;
  }
}

/** The words of a host's row when links of its pages to new hosts are not followed (see HostBudget). */
export function hostLimitMessage(limit: number, seedUrl: string, refusedHost: string): string {
  return (
    `stopped following links to new hosts: the crawl of ${seedUrl} has reached ${limit.toLocaleString('en-US')} hosts ` +
    `(the limit per seed, CRAWL_MAX_HOSTS_PER_SEED); not followed, e.g. ${refusedHost}`
  );
}
