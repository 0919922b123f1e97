/**
 * The connection pool of Lantern's PostgreSQL record (DATABASE_URL), and the two ways the pg stores talk to it:
 * a named statement (prepared once per connection, by its name) and a transaction on one pooled connection.
 * BIGINT columns (times in ms, row ids, counts) come back as JavaScript numbers, as SQLite answers them: every
 * such value Lantern stores is far below 2^53, and one that is not is an error rather than a rounded number.
 */
import pg from 'pg';

/** A pool, or one of its connections inside a transaction: both run statements. */
export type Queryable = pg.Pool | pg.PoolClient;

/** A statement run by name: PostgreSQL parses and plans it once per connection. */
export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** A value PostgreSQL answered that Lantern cannot take (a BIGINT past 2^53). */
export class PgValueError extends Error {
  override name = 'PgValueError';
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/** Text of a BIGINT or NUMERIC as a number, refusing one a double would round. */
function exactNumber(text: string): number {
  const n = Number(text);
  if (/^-?\d+$/.test(text) ? !Number.isSafeInteger(n) : !Number.isFinite(n)) {
    throw new PgValueError(
      `pool: PostgreSQL answered ${text}, beyond what Lantern stores exactly (2^53); check the row`,
    );
  }
  return n;
}

/** pg's type parsers, with BIGINT and NUMERIC as numbers. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return exactNumber;
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * How long a statement waits for a connection (a new one to PostgreSQL, or a free one of the pool) before it
 * fails retryable ("timeout exceeded when trying to connect"): without it, a PostgreSQL whose address drops
 * packets (a host down, a network cut) holds each request until the operating system gives up, minutes later.
 * A server that is stopped refuses at once; this bounds the other cases.
 */
export const PG_CONNECT_TIMEOUT_MS = 5000;

/**
 * How long PostgreSQL lets a session sit idle inside a transaction before it ends the session (its
 * `idle_in_transaction_session_timeout`), which rolls the transaction back and frees its locks. Lantern's
 * transactions send their statements back to back, so only a stopped process gets near it (SIGSTOP, a long
 * pause, a frozen machine): a crawler node stopped inside a fenced write would otherwise keep its groups' lease
 * rows locked, and every other node's note of work for those groups and every take of them waiting, for as
 * long as it stays stopped. Far above any pause between two statements of a running process, even a loaded one.
 */
export const PG_IDLE_IN_TRANSACTION_MS = 10_000;

/**
 * A pool on `url` (postgres://user:password@host:port/database), with Lantern's type parsing, a bounded wait
 * for a connection (`connectTimeoutMs`, PG_CONNECT_TIMEOUT_MS by default), sessions ended by the server when
 * idle inside a transaction (`idleInTransactionMs`, PG_IDLE_IN_TRANSACTION_MS by default) and TCP keep-alive, so
 * that a connection whose server vanished is noticed. An idle connection the server dropped (a restart, a network
 * cut) is reported to `warn` (stderr by default) and replaced by the pool; without a listener pg would end
 * the process for it.
 */
export function openPgPool(
  url: string,
  opts: {
    max?: number;
    warn?: (message: string) => void;
    connectTimeoutMs?: number;
    idleInTransactionMs?: number;
  } = {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    types: TYPES,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS,
    idle_in_transaction_session_timeout: opts.idleInTransactionMs ?? PG_IDLE_IN_TRANSACTION_MS,
    keepAlive: true,
  });
  const warn = opts.warn ?? ((message: string) => process.stderr.write(`${message}\n`));
  pool.on('error', (err) =>
    warn(`pool: an idle PostgreSQL connection failed (${err.message}); the pool opens another`),
  );
  return pool;
}

/** A named statement (its name must be unique per text: pg refuses one name for two texts). */
export function statement(name: string, text: string): Statement {
  return { name, text };
}

/** Runs a named statement and answers its rows. */
export async function rows<T extends pg.QueryResultRow>(
  db: Queryable,
  s: Statement,
  values: readonly unknown[] = [],
): Promise<T[]> {
  const result = await db.query<T>({ name: s.name, text: s.text, values: values as unknown[] });
  return result.rows;
}

/** Runs a named statement and answers its first row, or undefined. */
export async function row<T extends pg.QueryResultRow>(
  db: Queryable,
  s: Statement,
  values: readonly unknown[] = [],
): Promise<T | undefined> {
  return (await rows<T>(db, s, values))[0];
}

/** Runs a named statement and answers how many rows it changed. */
export async function changed(db: Queryable, s: Statement, values: readonly unknown[] = []): Promise<number> {
  const result = await db.query({ name: s.name, text: s.text, values: values as unknown[] });
  return result.rowCount ?? 0;
}

/**
 * Runs `work` in one transaction on one pooled connection: committed if it returns, rolled back if it throws
 * (and the error thrown on). A connection whose rollback failed, or that was lost meanwhile (the server ended
 * the session: a restart, or PG_IDLE_IN_TRANSACTION_MS past a paused process), is closed, not handed back to
 * the pool; pg reports such a loss on the client, which without a listener would end the process.
 */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onLost = (err: Error) => {
    broken ??= err;
  };
  client.on('error', onLost);
  try {
    await client.query('BEGIN');
    try {
      const out = await work(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        broken = rollbackErr as Error;
      }
      throw err;
    }
  } finally {
    client.off('error', onLost);
    client.release(broken);
  }
}
