/**
 * Errors of the machine rather than of Lantern: a full disk, a read-only file or file system, an I/O
 * failure, or a database held too long by another connection. Writers wait these out (the crawler
 * primary) or tell the person to try again (the server); any other write error is a bug.
 */
const STORAGE_ERROR =
  /^(SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|PROTOCOL)|ENOSPC|EROFS|EACCES|EPERM|EIO|EDQUOT)/;

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

/** The error in one line (see errorDetail) if it is a storage error, else null. */
export function storageErrorDetail(err: unknown): string | null {
  return STORAGE_ERROR.test(errorCode(err)) ? errorDetail(err) : null;
}

/** What to tell a person about a storage error: what is wrong and what to do. */
export function storageErrorAdvice(dataDir: string, detail: string): string {
  return `cannot write to the database in ${dataDir} (${detail}): is the disk full or the file read-only?`;
}
