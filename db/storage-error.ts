/**
 * Errors of the machine rather than of Lantern: a full disk, a read-only file or file system, an I/O
 * failure, or a database held too long by another connection; on PostgreSQL (DATABASE_URL), also a server
 * that is down, restarting or unreachable, a connection lost or timed out, a server out of room. Writers
 * wait these out (the crawler primary) or tell the person to try again (the server); any other write error
 * is a bug (a constraint violated, a statement PostgreSQL refuses).
 */
const STORAGE_ERROR =
  /^(SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|PROTOCOL)|ENOSPC|EROFS|EACCES|EPERM|EIO|EDQUOT)/;

/**
 * PostgreSQL's SQLSTATEs and Node's socket codes that mean the database is out of reach or out of room
 * for now: 08xxx connection exceptions, 53xxx insufficient resources (disk full, out of memory, too many
 * connections), 57P01-57P03 (an administrator's or a crash's shutdown, a server still starting), 25P03 (the
 * session ended for idling inside a transaction: a process stopped mid-transaction, see db/pg/pool.ts
 * PG_IDLE_IN_TRANSACTION_MS), 40001 / 40P01 (a serialization failure or deadlock: the same transaction succeeds
 * when run again), and a socket refused, reset, timed out or with no route.
 */
const PG_RETRYABLE_CODE =
  /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[123]|25P03|40001|40P01|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/;

/** What node-postgres says, without a code, when a connection ends under a query or cannot be made in time. */
const PG_CONNECTION_LOST =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect|Query read timeout)/;

/**
 * A storage engine's error, classified once where it happened (db/pg/pg-runner.ts): `retryable` when the
 * database is out of reach or out of room for now (the same write succeeds later), else a bug of Lantern's.
 * `code` is the engine's (SQLSTATE, socket code) or PG_CONNECTION_LOST when node-postgres gave none.
 */
export class StorageError extends Error {
  override name = 'StorageError';
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** An error's code (`SQLITE_FULL`, `ENOSPC`), or '' if it has none. */
export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

/** An error in one line: its code, if any, then its message (`SQLITE_FULL: database or disk is full`). */
export function errorDetail(err: unknown): string {
  const code = errorCode(err);
  return `${code ? `${code}: ` : ''}${String((err as { message?: unknown } | null)?.message ?? err)}`;
}

/**
 * A PostgreSQL (node-postgres) error as a StorageError (see there); one already classified is answered as
 * it is. An error that is neither PostgreSQL's nor a socket's (a TypeError of Lantern's) is classified fatal.
 */
export function pgStorageError(err: unknown, during: string): StorageError {
  if (err instanceof StorageError) return err;
  const code = errorCode(err);
  const message = String((err as { message?: unknown } | null)?.message ?? err);
  const lost = code === '' && PG_CONNECTION_LOST.test(message);
  const retryable = lost || PG_RETRYABLE_CODE.test(code);
  return new StorageError(
    `pg: ${during} failed (${code === '' ? '' : `${code}: `}${message})${retryable ? '; PostgreSQL is out of reach or out of room: the write is tried again once it answers' : ''}`,
    lost ? 'PG_CONNECTION_LOST' : code,
    retryable,
    { cause: err },
  );
}

/** The error in one line (see errorDetail) if it is a storage error, else null. */
export function storageErrorDetail(err: unknown): string | null {
  if (err instanceof StorageError) return err.retryable ? errorDetail(err) : null;
  return STORAGE_ERROR.test(errorCode(err)) ? errorDetail(err) : null;
}

/** What to tell a person about a storage error (`detail`: storageErrorDetail's): what is wrong and what to do. */
export function storageErrorAdvice(dataDir: string, detail: string): string {
  if (/\bpg: /.test(detail)) {
    return `database unreachable (${detail}): is PostgreSQL running and reachable at DATABASE_URL, with room to write?`;
  }
  return `cannot write to the database in ${dataDir} (${detail}): is the disk full or the file read-only?`;
}

/** Lantern's two storage engines (db/engine.ts): SQLite in DATA_DIR, or PostgreSQL at DATABASE_URL. */
export type StorageEngine = 'sqlite' | 'postgres';

/** A storage error as the machine's fault: which engine, whether it answers at all, and the cause in one line. */
export interface StorageFault {
  engine: StorageEngine;
  /** False: the database does not answer (PostgreSQL stopped, restarting, out of reach); true: it answers but refuses writes. */
  reachable: boolean;
  /** The engine's own words (`ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432`, `SQLITE_FULL: database or disk is full`). */
  detail: string;
}

/** SQLSTATEs of a PostgreSQL that answers but cannot take the write now: out of room (53xxx), a deadlock or serialization failure. */
const PG_ANSWERS_BUT_REFUSES = /^(53[0-9A-Z]{3}|40001|40P01)$/;

/**
 * Classifies `err`, thrown by storage on `engine`, as the machine's fault (see StorageFault), or null for a bug of
 * Lantern's. SQLite's codes are SQLite's on either engine (the search copy is SQLite); on PostgreSQL, an error not
 * classified yet (the server's stores throw node-postgres' own) is classified here as pgStorageError does.
 */
export function storageFault(err: unknown, engine: StorageEngine): StorageFault | null {
  if (!(err instanceof StorageError) && STORAGE_ERROR.test(errorCode(err))) {
    return { engine: 'sqlite', reachable: true, detail: errorDetail(err) };
  }
  if (engine === 'sqlite' && !(err instanceof StorageError)) return null;
  const classified = pgStorageError(err, 'a statement');
  if (!classified.retryable) return null;
  const cause = classified.cause ?? classified; // the engine's own error, not Lantern's wrapping of it
  return { engine: 'postgres', reachable: PG_ANSWERS_BUT_REFUSES.test(errorCode(cause)), detail: errorDetail(cause) };
}

/**
 * A storage outage as /api/status reports it (crawler/common/protocol.ts StorageStatusSchema has the same shape):
 * since when, the reason and what to do in words, and `message`, all of it in one sentence (the crawler's lastError).
 */
export interface StorageOutage {
  engine: StorageEngine;
  reachable: boolean;
  /** Always false while there is an outage: nothing can be written. */
  writable: boolean;
  /** When the first failure of this outage happened (ISO 8601, UTC). */
  since: string;
  /** What is wrong: `PostgreSQL at lantern@127.0.0.1:5432/lantern does not answer (ECONNREFUSED: …)`. */
  reason: string;
  /** What goes on meanwhile and what comes back by itself: the crawl paused, search from this server's copy. */
  effect: string;
  /** What the person can do. */
  action: string;
  /** All of it in one sentence, as the log and `lastError` say it. */
  message: string;
  /** Who saw it: the crawler (its crawl is paused) or the server (its own queries, the search copy's feed). */
  seenBy: 'crawler' | 'server';
}

/** `ms` as ISO 8601 to the second (`2026-12-07T03:01:02Z`), as the outage's words say its start. */
function isoSecond(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Describes an outage for a person (see StorageOutage). `where`: DATA_DIR's folder on SQLite, on PostgreSQL
 * its address as describeDatabaseUrl says it (never the password). On SQLite the crawler's words are the ones it
 * has always used for a full disk or a read-only file.
 */
export function describeStorageOutage(
  fault: StorageFault,
  o: { since: number; where: string; seenBy: 'crawler' | 'server' },
): StorageOutage {
  const since = new Date(o.since).toISOString();
  if (fault.engine === 'sqlite') {
    const reason = `cannot write to the database in ${o.where} (${fault.detail}): is the disk full or the file read-only?`;
    const effect =
      o.seenBy === 'crawler'
        ? 'The crawl is paused; what was fetched is kept and stored as soon as the database takes writes again'
        : 'Nothing can be saved until it takes writes again';
    return {
      engine: 'sqlite',
      reachable: true,
      writable: false,
      since,
      reason,
      effect,
      action: `free some space on the disk of ${o.where}, or make its files writable; Lantern carries on by itself`,
      message: `${reason} ${effect}`,
      seenBy: o.seenBy,
    };
  }
  const reason = fault.reachable
    ? `PostgreSQL at ${o.where} refuses writes (${fault.detail})`
    : `PostgreSQL at ${o.where} does not answer (${fault.detail})`;
  const effect =
    o.seenBy === 'crawler'
      ? "The crawl is paused; what was fetched is kept and stored when it answers again; search answers from this server's copy."
      : "Seeds, labels, imports and sign-in wait until it answers (try again then); search answers from this server's copy.";
  const action = fault.reachable
    ? 'give PostgreSQL room to write (its disk, its connection limit); Lantern carries on by itself'
    : 'start PostgreSQL, or check DATABASE_URL and the network to it; Lantern carries on by itself when it answers';
  const headline = fault.reachable ? 'database refuses writes' : 'database unreachable';
  return {
    engine: 'postgres',
    reachable: fault.reachable,
    writable: false,
    since,
    reason,
    effect,
    action,
    message: `${headline} since ${isoSecond(o.since)}: ${reason}. ${effect}`,
    seenBy: o.seenBy,
  };
}
