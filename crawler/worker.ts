import cluster from 'node:cluster';
import type { Agent } from 'undici';
import { createAgent } from './fetch/fetcher.ts';
import { appendFileSync } from 'node:fs';
import { runJob, type ParseObserver } from './job-runner.ts';
import { configFromArgument } from '../shared/config.ts';
import { staticResolver } from './fetch/static-resolver.ts';
import type { PrimaryToWorker, WorkerSettings, WorkerToPrimary } from './common/protocol.ts';

/**
 * A crawler worker process (a cluster worker), wiring only: it never opens the database and never
 * chooses what or when to fetch. Once loaded it says `ready` (the primary answers with its settings);
 * then for each job the primary hands it, it runs the job (crawler/job-runner.ts) and reports
 * `done`; reporting `done` is also how it says it is ready for the next job.
 */
let settings: WorkerSettings | null = null;
let agent: Agent | null = null;
const now = () => performance.timeOrigin + performance.now();

function send(msg: WorkerToPrimary): void {
  // The primary can die (kill -9) after `connected` was read but before the write: the write then fails
  // with EPIPE. Given a callback, Node hands that error to it instead of emitting an unhandled 'error'
  // that crashes this worker with a stack trace; with no primary left we exit, as on 'disconnect'.
  if (process.connected)
    process.send!(msg, (err: Error | null) => {
      if (err) process.exit(0);
    });
}

if (cluster.isPrimary) {
  throw new Error('worker: crawler/worker.ts runs only as a cluster worker forked by crawler/primary.ts');
}

// A test hook: with CRAWL_PARSE_TRACE set, each HTML parse's start and end are appended to that file as JSON
// lines (job-runner.ts's ParseObserver). A cluster worker gets the primary's arguments, the configuration first.
const traceFile = configFromArgument(process.argv[2]).crawlParseTrace;
const observe: ParseObserver | undefined = traceFile
  ? (event) => appendFileSync(traceFile, `${JSON.stringify({ ...event, pid: process.pid })}\n`)
  : undefined;

process.on('message', (msg: PrimaryToWorker) => {
  if (msg.type === 'settings') {
    settings = msg.settings;
    agent = createAgent(msg.settings, staticResolver(msg.settings.resolve ?? {}));
  } else if (msg.type === 'fetch') {
    void runJob(msg.job, settings!, agent!, now, observe).then((result) =>
      send({ type: 'done', result, sinceEndMs: now() - result.endedAt }),
    );
  }
});
// Loaded and listening: the primary answers with the settings, then jobs.
send({ type: 'ready' });
// Ctrl+C reaches the whole process group; the primary decides when workers stop.
process.on('SIGINT', () => undefined);
// The primary is our only reason to exist: when it goes, in-flight sockets close with us.
process.on('disconnect', () => process.exit(0));
