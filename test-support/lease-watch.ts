/**
 * A watch on `group_leases` for the tests of several crawler nodes (issue 29): it reads who holds each group at
 * which epoch every few tens of milliseconds and keeps every (group, owner, epoch) it saw, with when it first saw
 * it, so that a test can say afterwards whether a node held a group again at a new epoch. Reads that fail while
 * the test has said PostgreSQL is down are expected and counted; any other failure is kept and reported.
 */
import type pg from 'pg';
import { now } from './test-web.ts';

/** One holding seen: `owner` held `group` at `epoch`, first seen at `firstSeen` (test-web's clock). */
export interface Holding {
  group: string;
  owner: string;
  epoch: number;
  firstSeen: number;
}

/** Watches the leases until `stop` (see the module comment). */
export class LeaseWatch {
  private readonly seen = new Map<string, Holding>();
  private running = true;
  private loop: Promise<void>;
  /** Reads refused while the test said the database was down (expected). */
  downReads = 0;
  /** Reads that failed while the database was meant to be up (each one a fault to report). */
  readonly faults: string[] = [];
  /** Set by the test around a planned outage. */
  databaseDown = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly everyMs = 40,
  ) {
    this.loop = this.run();
  }

  /** Every holding seen so far. */
  holdings(): Holding[] {
    return [...this.seen.values()];
  }

  /** Whether `owner` was seen holding `group` at an epoch above `epoch`. */
  heldAgain(group: string, owner: string, epoch: number): boolean {
    for (const h of this.seen.values()) if (h.group === group && h.owner === owner && h.epoch > epoch) return true;
    return false;
  }

  /** Stops watching; resolves once the last read ended. */
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const r = await this.pool.query<{ group_key: string; owner: string; epoch: number }>(
          'SELECT group_key, owner, epoch::int AS epoch FROM group_leases WHERE owner IS NOT NULL',
        );
        const at = now();
        for (const row of r.rows) {
          const key = `${row.group_key} ${row.owner} ${row.epoch}`;
          if (!this.seen.has(key))
            this.seen.set(key, { group: row.group_key, owner: row.owner, epoch: row.epoch, firstSeen: at });
        }
      } catch (err) {
        if (this.databaseDown) this.downReads++;
        else this.faults.push((err as Error).message);
      }
      await new Promise((resolve) => setTimeout(resolve, this.everyMs));
    }
  }
}
