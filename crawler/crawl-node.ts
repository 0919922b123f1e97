/**
 * `npm run crawl-node`: a crawler node alone, with no web server (issue 29, docs/scaling.md "Many crawler nodes").
 * Wiring only. It reads the configuration from the environment once, requires DATABASE_URL (the PostgreSQL database
 * the Lantern servers and the other nodes share), and runs the crawler primary (crawler/primary.ts, with its
 * workers) as the server would: forked with the configuration as its argument, started again after a crash. The
 * primary, on PostgreSQL, is a lease-holding node: it crawls only the politeness groups it leases, reads the seeds
 * every half second (no server tells it of them), and on SIGTERM or SIGINT stops cleanly, releasing its groups with
 * their clocks so that the other nodes continue them at once.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { ConfigError, configArgument, loadConfig, type Config } from '../shared/config.ts';
import { processEntry } from '../shared/project-root.ts';
import type { PrimaryToServer } from './common/protocol.ts';
import { primaryExecArgv } from './primary-heap.ts';

const PRIMARY_ENTRY = processEntry('crawler/primary.ts');
/** A primary that crashed is started again after this long. */
const RESTART_MS = 1000;

/** The configuration, or the one-line reason this node cannot run (exit 2). */
function configOrExit(): Config {
  let config: Config;
  try {
    config = loadConfig(process.env); // the one place this process reads its environment
  } catch (err) {
    process.stderr.write(`crawl-node: ${err instanceof ConfigError ? err.message : String(err)}\n`);
    process.exit(2);
  }
  if (config.databaseUrl === null) {
    process.stderr.write(
      'crawl-node: DATABASE_URL is not set; a crawler node shares its work through PostgreSQL: set DATABASE_URL to the database of your Lantern server (postgres://user:password@host:port/name), and DATA_DIR to a folder of its own on this machine\n',
    );
    process.exit(2);
  }
  return config;
}

const config = configOrExit();
let child: ChildProcess | null = null;
let stopping = false;

/** Forks the primary; a crash (exit not asked for) starts another after RESTART_MS. */
function startPrimary(): void {
  const primary = fork(PRIMARY_ENTRY, [configArgument(config)], {
    env: process.env,
    execArgv: primaryExecArgv(process.execArgv, config.crawlPrimaryHeapMb),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child = primary;
  primary.on('message', (msg: PrimaryToServer) => {
    if (msg.type === 'started') process.stderr.write(`crawl-node: crawler primary ${msg.pid} started\n`);
  });
  primary.on('error', (err) =>
    process.stderr.write(`crawl-node: could not talk to the crawler primary: ${err.message}\n`),
  );
  primary.on('exit', (code, signal) => {
    child = null;
    if (stopping) process.exit(code === 0 ? 0 : 1);
    process.stderr.write(`crawl-node: the crawler primary exited (${signal ?? `code ${code}`}); starting another\n`);
    setTimeout(startPrimary, RESTART_MS);
  });
}

/** Asks the primary to stop cleanly (it releases its groups and leaves); exits when it has. */
function stop(signal: string): void {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`crawl-node: ${signal}: stopping the crawler node\n`);
  if (child === null || !child.connected) process.exit(0);
  child.send({ type: 'shutdown' });
}

process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
process.stderr.write(
  `crawl-node: node ${config.crawlNodeId ?? "named by host name and its primary's pid"} starting on PostgreSQL\n`,
);
startPrimary();
