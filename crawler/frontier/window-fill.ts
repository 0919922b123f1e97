/**
 * How a FrontierWindow (frontier-window.ts) reads on many hosts' queues at once: the hosts being filled, and
 * which of them the next round reads, and how many rows each. A round is one storage read for all its hosts
 * (FrontierStore.queuedAfterMany: one statement on PostgreSQL), so a flush that refills 256 hosts makes a
 * round trip or two, not 256 (measured before: round trips per flush p99 258, `npm run bench:frontier`).
 * Pure but for the windows it is handed: the window reads, and enters the rows (takeRows' `enter`).
 */
import type { FrontierRow, QueueRead } from '../../db/frontier.ts';
import type { HostWindow } from './host-window.ts';

/** One host's fill in progress: what its reads may still take, and how far the next one reaches past removed rows. */
export interface HostFill {
  readonly h: HostWindow;
  /** Rows its reads may still take in this fill (WINDOW.readBudget at its start). */
  budget: number;
  /** After a read that passed rows of removed seeds over, the next one reads twice as many (0: just what the window lacks). */
  stride: number;
  /** Read in every round until done, whatever the step passed over (a host that may be due with no job, or read again from its start). */
  readonly urgent: boolean;
  /** Rounds it was read in. */
  reads: number;
}

/** A new fill of `h` with `budget` rows to read at most. */
export function hostFill(h: HostWindow, budget: number, urgent: boolean): HostFill {
  return { h, budget, stride: 0, urgent, reads: 0 };
}

/** Whether the fill reads on: its host has rows beyond the cursor, room below `cap`, and budget left. */
export function readsOn(f: HostFill, cap: number): boolean {
  return f.h.more && f.h.entries.size < cap && f.budget > 0;
}

/** The hosts a round reads, each with its read (same index). */
export interface Round {
  fills: HostFill[];
  reads: QueueRead[];
}

/**
 * The next round over `fills` (urgent ones first, each reading on, see readsOn): every urgent fill, then the
 * others in their order while the round's rows stay within `passOverLeft` (the rows and jobs of removed seeds
 * the step may still pass over), at least one when any is left; none once it is spent. So a flush's refills
 * pass over about passOverPerStep removed rows at most (one host's read more), however long their run, as
 * when hosts were read one by one. Each reads what its window lacks below `cap`, or its stride, within its budget.
 */
export function planRound(fills: readonly HostFill[], cap: number, passOverLeft: number): Round {
  const round: Round = { fills: [], reads: [] };
  let rows = 0;
  let closed = passOverLeft <= 0;
  for (const f of fills) {
    const limit = Math.min(Math.max(cap - f.h.entries.size, f.stride), f.budget);
    if (!f.urgent) {
      if (!closed && rows > 0 && rows + limit > passOverLeft) closed = true;
      if (closed) continue;
    }
    round.fills.push(f);
    round.reads.push({ origin: f.h.origin, nextAttemptAt: f.h.tailAt, id: f.h.tailId, limit });
    rows += limit;
  }
  return round;
}

/** Storage answered a round's reads with a number of lists other than one per read: a bug of the source. */
export class WindowReadError extends Error {
  override name = 'WindowReadError';
}

/** The answers of a round, one list of rows per read, or a WindowReadError (a lost list would end a host's queue early). */
export function checkedAnswers(round: Round, answers: readonly FrontierRow[][]): readonly FrontierRow[][] {
  if (answers.length !== round.reads.length)
    throw new WindowReadError(
      `window-fill: storage answered ${answers.length} lists of rows for ${round.reads.length} hosts' reads; queuedAfterMany must answer one per read, in order`,
    );
  return answers;
}

/**
 * Takes the rows one read of `f` answered (`want` asked for) on its host's cursor, in queue order, until the
 * window holds `cap`: each moves the cursor and is entered, or passed over if its seed was removed (`enter`
 * answers which: true if entered). Rows past a full window are left beyond the cursor; a read that answered
 * fewer rows than asked, the window not full, read the whole queue (`more` false); a read that passed rows
 * over makes the next one twice as long (the stride).
 */
export function takeRows(
  f: HostFill,
  want: number,
  rows: readonly FrontierRow[],
  cap: number,
  enter: (row: FrontierRow) => boolean,
): void {
  const h = f.h;
  f.budget -= want;
  f.reads++;
  let passed = 0;
  let full = false;
  for (const row of rows) {
    if (h.entries.size >= cap) {
      full = true; // the rest waits beyond the cursor
      break;
    }
    h.tailAt = row.nextAttemptAt;
    h.tailId = row.id;
    if (!enter(row)) passed++;
  }
  if (!full && rows.length < want) h.more = false;
  f.stride = passed > 0 ? 2 * want : 0;
}

/** What fillRounds reads and enters through (the window's storage, ledger and scheduler). */
export interface FillParts {
  /** Rows and jobs of removed seeds the step may still pass over. */
  passOverLeft(): number;
  /** One round's reads, one list of rows per read (FrontierStore.queuedAfterMany). */
  read(reads: readonly QueueRead[]): Promise<FrontierRow[][]>;
  /** A row read on `h`'s cursor: entered (true), or passed over, of a removed seed (false). */
  enter(h: HostWindow, row: FrontierRow): boolean;
  /** The host's fill is over (read to `cap`, to its queue's end, to its budget, or stopped by the pass-over bound). */
  done(h: HostWindow): void;
}

/**
 * Reads on the queues of `fills`' hosts (urgent ones first), one storage read per round (planRound), until
 * each window holds `cap`, its queue is read, or its budget spent, or the step passed over what it may (the
 * others are left as they were, for the next flush); `done` hears of each host read, or that needed no read.
 */
export async function fillRounds(fills: readonly HostFill[], cap: number, parts: FillParts): Promise<void> {
  const readingOn = (f: HostFill): boolean => {
    if (readsOn(f, cap)) return true;
    parts.done(f.h);
    return false;
  };
  let left = fills.filter(readingOn);
  while (left.length > 0) {
    const round = planRound(left, cap, parts.passOverLeft());
    if (round.fills.length === 0) break; // the step passed over what it may: the rest wait for the next flush
    const answers = checkedAnswers(round, await parts.read(round.reads));
    for (const [i, f] of round.fills.entries())
      takeRows(f, round.reads[i]!.limit, answers[i]!, cap, (row) => parts.enter(f.h, row));
    left = left.filter(readingOn);
  }
  for (const f of left) if (f.reads > 0) parts.done(f.h); // stopped midway by the pass-over bound
}
