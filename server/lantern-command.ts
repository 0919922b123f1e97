/**
 * `npm run lantern -- copy --to postgres://user:password@host:port/database`: copies the SQLite database in
 * DATA_DIR (opened read-only) into an empty PostgreSQL database (migrated here first), printing each table's
 * progress at most once a second and a summary of the counts; exits 1 when the counts differ or the copy
 * failed, 2 for a wrong command line or configuration. The password never appears in what it prints.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError, loadConfig } from '../shared/config.ts';
import { DB_FILE, openDatabase } from '../db/open.ts';
import { type CopyProgress, copyFromSqlite } from '../db/pg/copy-from-sqlite.ts';
import { migratePg } from '../db/pg/migrate-pg.ts';
import { describeDatabaseUrl } from '../db/pg/pg-server-store.ts';
import { openPgPool } from '../db/pg/pool.ts';

const USAGE = 'usage: npm run lantern -- copy --to postgres://user:password@host:port/database';

/** A command line the command does not understand; the message gives the usage. */
export class CommandLineError extends Error {
  override name = 'CommandLineError';
}

/** The target URL of `copy --to URL` (or `--to=URL`); throws CommandLineError for anything else. */
export function parseCopyArgs(args: readonly string[]): { to: string } {
  const [command, ...rest] = args;
  if (command !== 'copy')
    throw new CommandLineError(`lantern-command: unknown command ${command ?? '(none)'}; ${USAGE}`);
  let to: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as string;
    if (a === '--to') to = rest[++i];
    else if (a.startsWith('--to=')) to = a.slice('--to='.length);
    else throw new CommandLineError(`lantern-command: unknown argument ${a}; ${USAGE}`);
  }
  if (to === undefined || !/^postgres(ql)?:\/\//.test(to)) {
    throw new CommandLineError(`lantern-command: copy needs --to with a postgres:// URL; ${USAGE}`);
  }
  return { to };
}

/** `text` with the URL's password replaced, in case a driver's message quotes it. */
function withoutPassword(text: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return text;
  }
  return password === '' ? text : text.replaceAll(password, '***');
}

/**
 * Runs the command on `args` with DATA_DIR from `env`, writing progress and the summary to `out` and errors to
 * `err`; answers the exit code. Exported so that a test runs it as the person would, without a child process.
 */
export async function runLanternCommand(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
  now: () => number = Date.now,
): Promise<number> {
  let to: string;
  let dataDir: string;
  try {
    to = parseCopyArgs(args).to;
    dataDir = loadConfig(env).dataDir;
  } catch (e) {
    if (e instanceof CommandLineError || e instanceof ConfigError) {
      err(e.message);
      return 2;
    }
    throw e;
  }
  const where = describeDatabaseUrl(to);
  if (!existsSync(path.join(dataDir, DB_FILE))) {
    err(
      `lantern-command: no Lantern database at ${path.join(dataDir, DB_FILE)}; set DATA_DIR to the folder holding it`,
    );
    return 1;
  }
  const db = openDatabase(dataDir, { readonly: true });
  const pool = openPgPool(to, { max: 1, warn: (m) => err(withoutPassword(m, to)) });
  let lastPrint = 0;
  const progress = (p: CopyProgress): void => {
    const t = now();
    if (p.copied === p.total || t - lastPrint >= 1000) {
      lastPrint = t;
      out(`copy: ${p.table} ${p.copied.toLocaleString('en')} of ${p.total.toLocaleString('en')} rows`);
    }
  };
  try {
    out(`copy: from ${path.join(dataDir, DB_FILE)} to ${where}`);
    await migratePg(pool);
    const summary = await copyFromSqlite(db, pool, { onProgress: progress });
    for (const c of summary.counts) {
      out(
        `copy: ${c.table.padEnd(20)} sqlite ${c.sqlite} postgres ${c.postgres}${c.sqlite === c.postgres ? '' : '  DIFFERS'}`,
      );
    }
    if (summary.leftColumns.length > 0) out(`copy: SQLite columns not copied: ${summary.leftColumns.join(', ')}`);
    if (!summary.verified) {
      err(
        `lantern-command: the counts differ on ${where} (see above); do not use that database, copy again into a new one`,
      );
      return 1;
    }
    out(`copy: done, the counts of all ${summary.counts.length} tables agree`);
    return 0;
  } catch (e) {
    err(withoutPassword(`lantern-command: copy to ${where} failed: ${(e as Error).message}`, to));
    return 1;
  } finally {
    db.close();
    await pool.end();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runLanternCommand(
    process.argv.slice(2),
    process.env,
    (line) => process.stdout.write(`${line}\n`),
    (line) => process.stderr.write(`${line}\n`),
  ).then((code) => process.exit(code));
}
