/**
 * Samples the resident memory of a changing set of processes (the crawler's workers) from
 * /proc/<pid>/status while a test runs (Linux). It keeps the largest VmRSS seen and each process's
 * VmHWM (the kernel's own high-water mark, which also catches spikes between two samples).
 */
import { readFileSync } from 'node:fs';

/** What the sampler saw. Sizes in MiB (rounded to 0.1). */
export interface MemoryReport {
  /** Largest VmRSS of any one process at any sample. */
  peakRssMiB: number;
  /** Largest VmHWM of any one process (its peak resident size over its life, as the kernel counts it). */
  peakHwmMiB: number;
  /** Number of samples taken. */
  samples: number;
  /** Every pid seen. */
  pids: number[];
}

/** The VmRSS and VmHWM lines of /proc/<pid>/status in KiB, or undefined if the process is gone. */
export function processMemoryKiB(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(status);
    const hwm = /^VmHWM:\s+(\d+) kB/m.exec(status);
    if (!rss || !hwm) return undefined;
    return { rss: Number(rss[1]), hwm: Number(hwm[1]) };
  } catch {
    return undefined;
  }
}

/** A running sampler: `report()` at any time, `stop()` once (takes a last sample). */
export interface MemorySampler {
  report(): MemoryReport;
  stop(): MemoryReport;
}

/** Samples the processes `pids()` returns every `intervalMs` until stopped. */
export function sampleMemory(pids: () => number[], intervalMs = 100): MemorySampler {
  let peakRss = 0;
  let peakHwm = 0;
  let samples = 0;
  const seen = new Set<number>();
  const sample = (): void => {
    samples++;
    for (const pid of pids()) {
      const m = processMemoryKiB(pid);
      if (!m) continue;
      seen.add(pid);
      peakRss = Math.max(peakRss, m.rss);
      peakHwm = Math.max(peakHwm, m.hwm);
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  const mib = (kib: number) => Math.round(kib / 102.4) / 10;
  const report = (): MemoryReport => ({ peakRssMiB: mib(peakRss), peakHwmMiB: mib(peakHwm), samples, pids: [...seen] });
  return {
    report,
    stop() {
      clearInterval(timer);
      sample();
      return report();
    },
  };
}
