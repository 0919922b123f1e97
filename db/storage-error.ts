/**
 * Errors of the machine rather than of Lantern: a full disk, a read-only file or file system, an I/O
 * failure, or a database held too long by another connection. Writers wait these out (the crawler
 * primary) or tell the person to try again (the server); any other write error is a bug.
 */
const STORAGE_ERROR = /^(SQLITE_(FULL|READONLY|IOERR|CANTOPEN|BUSY|LOCKED|PROTOCOL)|ENOSPC|EROFS|EACCES|EPERM|EIO|EDQUOT)/;

/** The error's code and message in one line (`SQLITE_FULL: database or disk is full`), if it is a storage error. */
export function storageErrorDetail(err: unknown): string | null {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = e && typeof e.code === 'string' ? e.code : '';
  if (!STORAGE_ERROR.test(code)) return null;
  return `${code}: ${String(e?.message ?? err)}`;
}

/** What to tell a person about a storage error: what is wrong and what to do. */
export function storageErrorAdvice(dataDir: string, detail: string): string {
  return `cannot write to the database in ${dataDir} (${detail}): is the disk full or the file read-only?`;
}
