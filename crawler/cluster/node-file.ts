/**
 * The id of the crawler node that last ran on a DATA_DIR (issue 29), kept in DATA_DIR/crawler-node. A primary holds
 * DATA_DIR's lock (crawler/coordination/primary-lock.ts) while it runs, so the node named there when a new primary
 * starts is dead: its leases can be freed at once rather than left to expire (a crash and restart of one node does
 * not stall its groups for a lease's length).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const FILE = 'crawler-node';

/** The node id last written in `dataDir`, or null if none (a first start, or a file unreadable). */
export function previousNode(dataDir: string): string | null {
  try {
    const id = readFileSync(path.join(dataDir, FILE), 'utf8').trim();
    return id === '' ? null : id;
  } catch {
    return null; // none yet: nothing to free
  }
}

/** Writes this node's id in `dataDir`, so that the next primary there can free what it leaves. */
export function recordNode(dataDir: string, node: string): void {
  try {
    writeFileSync(path.join(dataDir, FILE), `${node}\n`);
  } catch (err) {
    throw new Error(
      `node-file: cannot write ${path.join(dataDir, FILE)} (${(err as Error).message}); make DATA_DIR writable by the crawler`,
    );
  }
}
