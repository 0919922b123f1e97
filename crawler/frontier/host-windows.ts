/**
 * The hosts' windows of a FrontierWindow (frontier-window.ts) by origin, and each window's share of them.
 *
 * The windows' total is bounded: with many hosts waiting, each host's window is filled to fewer jobs
 * (WINDOW.total over the hosts with URLs waiting, never below WINDOW.min nor above WINDOW.size), so the
 * memory of 10,000 hosts' windows is that of 40,000 jobs, not 160,000. Which jobs a window holds never
 * changes what is handed out: the scheduler needs only each host's first job to order the hosts, and a
 * host left without one reads on at once, within its dispatch (`syncBelow`); a smaller window only means
 * more reads, each a few rows. So every change of a host's count of URLs waiting goes through `setWaiting`,
 * which keeps the count of hosts with some that the share (window-sizes.ts windowCap) follows.
 */
import { type HostWindow, START_AT } from './host-window.ts';
import { windowCap, type WindowSizes } from './window-sizes.ts';

/** The hosts' windows by origin, and how many hosts have URLs waiting (see the module comment). */
export class HostWindows {
  private readonly byOrigin = new Map<string, HostWindow>();
  /** Hosts with URLs waiting (waiting > 0): the windows' `total` is shared among them. */
  private active = 0;

  constructor(private readonly sizes: WindowSizes) {}

  /** The host's window, if it has one. */
  get(origin: string): HostWindow | undefined {
    return this.byOrigin.get(origin);
  }

  /** The host's window, made (empty, with its cursor at the start) if it has none yet. */
  of(origin: string): HostWindow {
    let h = this.byOrigin.get(origin);
    if (!h) {
      h = { origin, entries: new Map(), tailAt: START_AT, tailId: 0, more: false, waiting: 0, retries: [] };
      this.byOrigin.set(origin, h);
    }
    return h;
  }

  /** Every host's window, in the order they were made. */
  values(): IterableIterator<HostWindow> {
    return this.byOrigin.values();
  }

  /** Sets the host's count of URLs waiting, keeping the count of hosts with some. */
  setWaiting(h: HostWindow, n: number): void {
    if (h.waiting > 0 !== n > 0) this.active += n > 0 ? 1 : -1;
    h.waiting = n;
  }

  /** How many jobs a host's window is filled to now (window-sizes.ts windowCap). */
  cap(): number {
    return windowCap(this.sizes, this.active).cap;
  }

  /** Below how many jobs a host's window is read again now. */
  low(): number {
    return windowCap(this.sizes, this.active).low;
  }
}
