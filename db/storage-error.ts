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
 * connections), 57P01-57P03 (an administrator's or a crash's shutdown, a server still starting), 40001 /
 * 40P01 (a serialization failure or deadlock: the same transaction succeeds when run again), and a socket
 * refused, reset, timed out or with no route.
 */
const PG_RETRYABLE_CODE =
  /^(08[0-9A-Z]{3}|53[0-9A-Z]{3}|57P0[123]|40001|40P01|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/;

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
