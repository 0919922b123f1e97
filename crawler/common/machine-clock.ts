/**
 * The machine's monotonic clock in milliseconds (CLOCK_MONOTONIC through process.hrtime): one clock for every
 * process of the machine, so a crawler node's primary can tell a worker until when a job may be sent
 * (FetchJob.sendBy) and the worker can judge it however long the job waited on the way (a paused process, a
 * slow pipe). `performance.now()` will not do: each process counts it from its own start.
 */
export function machineNow(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
