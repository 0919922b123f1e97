/**
 * How the crawl store's PostgreSQL modules run their statements: on the pool (each statement on its own), or
 * inside one transaction on one connection, where a write whose outcome nobody reads (a URL finished, a host's
 * clocks saved) is not sent at once but held, and sent with the next statement that answers something, or
 * with the COMMIT: one round trip for many writes, in their order. node-postgres sends one statement per round
 * trip (no pipelining); a batch of 500 intents would otherwise be 500 round trips, each a network's latency.
 *
 * Held writes travel in PostgreSQL's simple protocol, several statements in one message, so their values are
 * written into the text as literals (`literal` below: quoted and escaped as node-postgres escapes them, numbers
 * checked finite); a statement that answers rows runs as a named prepared statement when nothing is held.
 * A held write that fails makes the statement it travels with fail, inside the same transaction: the
 * transaction fails as a whole either way. Every error leaves here classified (db/storage-error.ts).
 */
import type pg from 'pg';
import { pgStorageError } from '../storage-error.ts';
import type { Statement } from './pool.ts';

/** Where a crawl store module's statements run (see the module comment). */
export interface PgRunner {
  /** Runs a statement and answers its rows (held writes go first, in the same round trip). */
  rows<T extends pg.QueryResultRow>(s: Statement, values?: readonly unknown[]): Promise<T[]>;
  /** Runs a statement and answers how many rows it changed. */
  changed(s: Statement, values?: readonly unknown[]): Promise<number>;
  /** A write whose outcome is not needed: in a transaction, held until the next statement or the commit. */
  write(s: Statement, values?: readonly unknown[]): Promise<void>;
}

/** A value PostgreSQL cannot take as a literal (NaN, Infinity, an object). */
export class PgLiteralError extends Error {
  override name = 'PgLiteralError';
}

/**
 * A number as the crawl tables store it. Every numeric column the crawl store writes is an integer (times in
 * ms, ids, counts; the one fractional column, a page's link density, is passed as text), while the
 * primary's clock has sub-millisecond precision (performance.now): a fractional time is rounded up to the
 * next millisecond, so a stored "not before" time is never earlier than the one decided. SQLite keeps such a
 * time as a REAL; PostgreSQL's BIGINT refuses it.
 */
export function storedNumber(value: number): number {
  if (!Number.isFinite(value))
    throw new PgLiteralError(`pg-runner: ${value} is not a number PostgreSQL stores; check the value`);
  return Number.isInteger(value) ? value : Math.ceil(value);
}

/** `values` as parameters: numbers as storedNumber makes them, arrays' numbers too, the rest as they are. */
export function storedValues(values: readonly unknown[]): unknown[] {
  return values.map((v) =>
    typeof v === 'number'
      ? storedNumber(v)
      : Array.isArray(v)
        ? v.map((i) => (typeof i === 'number' ? storedNumber(i) : i))
        : v,
  );
}

/** A JavaScript value as a quoted SQL literal (see the module comment), or NULL. */
export function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return `'${storedNumber(value)}'`;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return quote(value);
  if (Buffer.isBuffer(value)) return quote(`\\x${value.toString('hex')}`);
  if (Array.isArray(value)) return quote(arrayText(value));
  throw new PgLiteralError(
    `pg-runner: a ${typeof value} cannot be written as a SQL literal; pass numbers, strings, buffers or arrays`,
  );
}

/** A string quoted as node-postgres' escapeLiteral does (E'' with doubled backslashes when it has any). */
function quote(text: string): string {
  const body = text.replace(/'/g, "''");
  return text.includes('\\') ? ` E'${body.replace(/\\/g, '\\\\')}'` : `'${body}'`;
}

/** A one-dimensional array in PostgreSQL's array text form ({"a","b",NULL}). */
function arrayText(items: readonly unknown[]): string {
  const parts = items.map((item) => {
    if (item === null || item === undefined) return 'NULL';
    if (Array.isArray(item))
      throw new PgLiteralError('pg-runner: nested arrays are not written as literals; flatten the values');
    const text = Buffer.isBuffer(item)
      ? `\\x${item.toString('hex')}`
      : typeof item === 'number'
        ? String(storedNumber(item))
        : typeof item === 'object'
          ? ''
          : String(item);
    return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  });
  return `{${parts.join(',')}}`;
}

/** A statement's text with its $n parameters replaced by `values` as literals. */
export function inline(s: Statement, values: readonly unknown[]): string {
  return s.text.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i >= values.length)
      throw new PgLiteralError(`pg-runner: ${s.name} uses $${n} and was given ${values.length} values`);
    return literal(values[i]);
  });
}

/** Statements on the pool, each on its own connection turn. */
export function poolRunner(pool: pg.Pool): PgRunner {
  const query = async (s: Statement, values: readonly unknown[]) => {
    try {
      return await pool.query({ name: s.name, text: s.text, values: storedValues(values) });
    } catch (err) {
      throw pgStorageError(err, s.name);
    }
  };
  return {
    rows: async <T extends pg.QueryResultRow>(s: Statement, values: readonly unknown[] = []) =>
      (await query(s, values)).rows as T[],
    changed: async (s, values = []) => (await query(s, values)).rowCount ?? 0,
    write: async (s, values = []) => void (await query(s, values)),
  };
}

/** Held text past which writes are sent without waiting for a statement to travel with (1 MiB). */
const HELD_MAX_CHARS = 1 << 20;

/**
 * One transaction's statements on one connection (see the module comment). `opening` (BEGIN ...) is held
 * like a write, so it travels with the first statement; `finish` sends what is held with COMMIT.
 */
export class TxRunner implements PgRunner {
  private held: string[];
  private heldChars = 0;
  /** Round trips made so far (benchmarks count them). */
  roundTrips = 0;

  constructor(
    private readonly client: pg.PoolClient,
    opening: string,
  ) {
    this.held = [opening];
  }

  async rows<T extends pg.QueryResultRow>(s: Statement, values: readonly unknown[] = []): Promise<T[]> {
    return (await this.run(s, values)).rows as T[];
  }

  async changed(s: Statement, values: readonly unknown[] = []): Promise<number> {
    return (await this.run(s, values)).rowCount ?? 0;
  }

  async write(s: Statement, values: readonly unknown[] = []): Promise<void> {
    const text = inline(s, values);
    this.held.push(text);
    this.heldChars += text.length;
    if (this.heldChars >= HELD_MAX_CHARS) await this.send(null, 'sending held writes');
  }

  /** Sends what is held, then COMMIT, in one round trip. */
  async commit(): Promise<void> {
    this.held.push('COMMIT');
    await this.send(null, 'commit');
  }

  /** Rolls back: what is held is dropped (it was never sent). */
  async rollback(): Promise<void> {
    this.held = [];
    this.heldChars = 0;
    this.roundTrips++;
    try {
      await this.client.query('ROLLBACK');
    } catch (err) {
      throw pgStorageError(err, 'rollback');
    }
  }

  private async run(s: Statement, values: readonly unknown[]): Promise<pg.QueryResult> {
    if (this.held.length === 0) {
      this.roundTrips++;
      try {
        return await this.client.query({ name: s.name, text: s.text, values: storedValues(values) });
      } catch (err) {
        throw pgStorageError(err, s.name);
      }
    }
    return this.send(inline(s, values), s.name);
  }

  /** Sends what is held (and `last`, whose result is answered) as one simple-protocol message. */
  private async send(last: string | null, during: string): Promise<pg.QueryResult> {
    const texts = last === null ? this.held : [...this.held, last];
    this.held = [];
    this.heldChars = 0;
    this.roundTrips++;
    try {
      const results = (await this.client.query(texts.join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
      return Array.isArray(results) ? results[results.length - 1]! : results;
    } catch (err) {
      throw pgStorageError(err, during);
    }
  }
}
