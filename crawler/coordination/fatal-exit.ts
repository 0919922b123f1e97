/**
 * How the crawler primary ends on a failure it cannot wait out (a bug, an unreadable configuration, a
 * database it cannot open): one line in the log, the same message to the server (which shows it in
 * /api/status and starts a new primary), then exit 1, once the report is written or at the latest
 * PRIMARY_TIMING.fatalReportMs later (a server that does not read must not keep the process alive).
 */
import { PRIMARY_TIMING, type PrimaryTransport, type Timers, type WorkerHandle } from './primary-ports.ts';

/** Reports `message` as fatal and exits with 1 (see the module comment); exits once, however the report ends. */
export function fatalExit<W extends WorkerHandle>(
  transport: PrimaryTransport<W>,
  timers: Timers,
  message: string,
): void {
  transport.log(`crawler: ${message}`);
  let exited = false;
  const exit = () => {
    if (exited) return;
    exited = true;
    transport.exit(1);
  };
  timers.setTimeout(exit, PRIMARY_TIMING.fatalReportMs);
  transport.toServer({ type: 'error', message }, exit);
}
