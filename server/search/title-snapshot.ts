/**
 * The title index's snapshot file: a TermSearchState (term-search.ts) plus the pages.seq cursor of
 * the last page change it contains, so that a restarting server restores the index in about a
 * second and reads only the pages written since, instead of re-indexing every page (about 9 s at
 * 100k pages). Correctness never depends on it: whatever is wrong with a file (missing, truncated,
 * corrupt, another version or other index options) makes decodeSnapshot throw, and the index is
 * built from the pages table as if there were none.
 *
 * Layout: MAGIC, a u32 header length, the header (JSON), then 8-byte-aligned sections: ids
 * (float64), short ids and field lengths (u32), terms (UTF-8, "\n"-separated: the tokenizer splits
 * on newlines, so no term contains one), postings (u32). The header holds the section sizes, the
 * counters, the index fingerprint and a CRC-32 of everything after it. Numbers are in the machine's
 * byte order (the header says which; another one is refused). Written atomically: a temp file in
 * the same directory, then rename.
 */
import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { closeSync, openSync, renameSync, rmSync, writevSync } from 'node:fs';
import os from 'node:os';
import { crc32 } from 'node:zlib';
import type { TermSearchState } from './term-search.ts';

/** Bumped whenever the layout below changes. */
export const SNAPSHOT_FORMAT = 1;
const MAGIC = Buffer.from('LANTERN-TITLE-INDEX\n', 'latin1');

/**
 * Where a snapshot stands in the pages table: the seq of its last page change and that page's id,
 * and the urls of a few of its pages (a page's id and url never change, so these tell a snapshot
 * of another database).
 */
export interface SnapshotCursor {
  cursor: number;
  cursorId: number;
  checks: Array<{ id: number; url: string }>;
}

interface Header extends SnapshotCursor {
  format: number;
  fingerprint: string;
  endianness: string;
  documentCount: number;
  nextId: number;
  avgFieldLength: number[];
  docs: number;
  fieldsPerDoc: number;
  termCount: number;
  termsBytes: number;
  postings: number;
  crc: number;
}

/** A snapshot file that cannot be used; the message says why. */
export class SnapshotError extends Error {
  override name = 'SnapshotError';
}

const align8 = (n: number) => (n + 7) & ~7;
/** Buffers per writev call (the system's IOV_MAX is at least 1024). */
const WRITEV_MAX = 512;

/** Section byte lengths, in file order. */
function sections(h: Pick<Header, 'docs' | 'fieldsPerDoc' | 'termsBytes' | 'postings'>): number[] {
  return [h.docs * 8, h.docs * 4, h.docs * h.fieldsPerDoc * 4, h.termsBytes, h.postings * 4];
}

/**
 * The snapshot of `state` at `at`, for an index whose options are described by `fingerprint`, as
 * the pieces of the file in order (written with one writev; nothing is copied into one buffer).
 */
export function encodeSnapshot(state: TermSearchState, at: SnapshotCursor, fingerprint: string): Buffer[] {
  const terms = Buffer.from(state.terms.join('\n'), 'utf8');
  const docs = state.shortIds.length;
  const body: Buffer[] = [];
  for (const b of [
    Buffer.from(state.ids.buffer, state.ids.byteOffset, state.ids.byteLength),
    Buffer.from(state.shortIds.buffer, state.shortIds.byteOffset, state.shortIds.byteLength),
    Buffer.from(state.fieldLengths.buffer, state.fieldLengths.byteOffset, state.fieldLengths.byteLength),
    terms,
    Buffer.from(state.postings.buffer, state.postings.byteOffset, state.postings.byteLength),
  ]) {
    body.push(b);
    if (align8(b.length) > b.length) body.push(Buffer.alloc(align8(b.length) - b.length));
  }
  let crc = 0;
  for (const b of body) crc = crc32(b, crc);
  const header: Header = {
    format: SNAPSHOT_FORMAT,
    fingerprint,
    endianness: os.endianness(),
    cursor: at.cursor,
    cursorId: at.cursorId,
    checks: at.checks,
    documentCount: state.documentCount,
    nextId: state.nextId,
    avgFieldLength: state.avgFieldLength,
    docs,
    fieldsPerDoc: docs === 0 ? 0 : state.fieldLengths.length / docs,
    termCount: state.terms.length,
    termsBytes: terms.length,
    postings: state.postings.length,
    crc,
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const headerLength = align8(MAGIC.length + 4 + json.length) - MAGIC.length - 4;
  const head = Buffer.alloc(MAGIC.length + 4 + headerLength, 0x20);
  MAGIC.copy(head, 0);
  head.writeUInt32LE(headerLength, MAGIC.length);
  json.copy(head, MAGIC.length + 4);
  return [head, ...body];
}

/** A typed-array view of `length` bytes of `buf` at `offset` (copied when not aligned for the type). */
function view<T>(
  buf: Buffer,
  offset: number,
  length: number,
  bytes: number,
  make: (ab: ArrayBufferLike, off: number, n: number) => T,
): T {
  const at = buf.byteOffset + offset;
  if (at % bytes === 0) return make(buf.buffer, at, length / bytes);
  const copy = new Uint8Array(length);
  copy.set(buf.subarray(offset, offset + length));
  return make(copy.buffer, 0, length / bytes);
}

/**
 * The state and cursor in a snapshot file's contents; throws SnapshotError when the file is not a
 * complete, intact snapshot of this format, byte order and `fingerprint`. With `checksum: false` the
 * body's checksum is left to checksumSteps (the caller's job then).
 */
export function decodeSnapshot(
  buf: Buffer,
  fingerprint: string,
  opts: { checksum?: boolean } = {},
): { state: TermSearchState; at: SnapshotCursor } {
  if (buf.length < MAGIC.length + 4 || !buf.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new SnapshotError('title-snapshot: not a title index snapshot');
  }
  const headerLength = buf.readUInt32LE(MAGIC.length);
  const bodyAt = MAGIC.length + 4 + headerLength;
  if (bodyAt > buf.length) throw new SnapshotError('title-snapshot: truncated header');
  let h: Header;
  try {
    h = JSON.parse(buf.toString('utf8', MAGIC.length + 4, bodyAt)) as Header;
  } catch (err) {
    throw new SnapshotError(`title-snapshot: unreadable header (${(err as Error).message})`);
  }
  if (h.format !== SNAPSHOT_FORMAT)
    throw new SnapshotError(`title-snapshot: format ${h.format}, expected ${SNAPSHOT_FORMAT}`);
  if (h.fingerprint !== fingerprint) throw new SnapshotError('title-snapshot: written with other index options');
  if (h.endianness !== os.endianness())
    throw new SnapshotError('title-snapshot: written on a machine of the other byte order');
  const counts = [
    h.cursor,
    h.cursorId,
    h.documentCount,
    h.nextId,
    h.docs,
    h.fieldsPerDoc,
    h.termCount,
    h.termsBytes,
    h.postings,
    h.crc,
  ];
  const checksOk =
    Array.isArray(h.checks) && h.checks.every((c) => Number.isSafeInteger(c?.id) && typeof c?.url === 'string');
  if (!counts.every((n) => Number.isSafeInteger(n) && n >= 0) || !Array.isArray(h.avgFieldLength) || !checksOk) {
    throw new SnapshotError('title-snapshot: bad header values');
  }
  const lengths = sections(h);
  const bodyLength = lengths.reduce((sum, n) => sum + align8(n), 0);
  if (buf.length !== bodyAt + bodyLength)
    throw new SnapshotError('title-snapshot: wrong length (truncated or extended)');
  const body = buf.subarray(bodyAt);
  if (opts.checksum !== false && crc32(body) !== h.crc) throw new SnapshotError('title-snapshot: checksum mismatch');
  const offsets: number[] = [];
  let off = 0;
  for (const n of lengths) {
    offsets.push(off);
    off += align8(n);
  }
  const terms = h.termsBytes === 0 ? [] : body.toString('utf8', offsets[3], offsets[3] + lengths[3]).split('\n');
  if (terms.length !== h.termCount) throw new SnapshotError('title-snapshot: term count mismatch');
  const state: TermSearchState = {
    documentCount: h.documentCount,
    nextId: h.nextId,
    avgFieldLength: h.avgFieldLength,
    ids: view(body, offsets[0], lengths[0], 8, (ab, o, n) => new Float64Array(ab, o, n)),
    shortIds: view(body, offsets[1], lengths[1], 4, (ab, o, n) => new Uint32Array(ab, o, n)),
    fieldLengths: view(body, offsets[2], lengths[2], 4, (ab, o, n) => new Uint32Array(ab, o, n)),
    terms,
    postings: view(body, offsets[4], lengths[4], 4, (ab, o, n) => new Uint32Array(ab, o, n)),
  };
  return { state, at: { cursor: h.cursor, cursorId: h.cursorId, checks: h.checks } };
}

/** Bytes of a snapshot checksummed per step of checksumSteps (a few ms each). */
const CHECKSUM_STEP_BYTES = 8 * 1024 * 1024;

/**
 * Checks the body checksum of a snapshot that decodeSnapshot (with `checksum: false`) accepted, in
 * steps, so that a large file (200 MB at a million pages) does not stall the event loop for a
 * quarter of a second; throws SnapshotError when it does not match.
 */
export function* checksumSteps(buf: Buffer): Generator<void, void, void> {
  const bodyAt = MAGIC.length + 4 + buf.readUInt32LE(MAGIC.length);
  const h = JSON.parse(buf.toString('utf8', MAGIC.length + 4, bodyAt)) as Header;
  let crc = 0;
  for (let at = bodyAt; at < buf.length; at += CHECKSUM_STEP_BYTES) {
    crc = crc32(buf.subarray(at, Math.min(buf.length, at + CHECKSUM_STEP_BYTES)), crc);
    yield;
  }
  if (crc !== h.crc) throw new SnapshotError('title-snapshot: checksum mismatch');
}

/** The contents of `file`, or undefined when it does not exist. */
export async function readSnapshotFile(file: string): Promise<Buffer | undefined> {
  try {
    return await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function tempName(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/**
 * Removes the temp files of writes that a crash interrupted (`<file>.<pid>.<hex>.tmp`, as large as a
 * snapshot each) and returns their names. Only for a start: one server owns a DATA_DIR
 * (server/server-lock.ts), so no other process is writing one.
 */
export async function removeStaleTemps(file: string): Promise<string[]> {
  const dir = path.dirname(file);
  const base = path.basename(file);
  const stale = /^\d+\.[0-9a-f]{8}\.tmp$/;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const removed = names.filter((n) => n.startsWith(`${base}.`) && stale.test(n.slice(base.length + 1)));
  for (const n of removed) await rm(path.join(dir, n), { force: true });
  return removed;
}

/** Writes `data` (the pieces in order) to `file` atomically (temp file in the same directory, then rename). */
export async function writeSnapshotFile(file: string, data: readonly Buffer[]): Promise<void> {
  const temp = tempName(file);
  try {
    const fh = await open(temp, 'w');
    try {
      let off = 0;
      for (let i = 0; i < data.length; i += WRITEV_MAX) {
        const batch = data.slice(i, i + WRITEV_MAX);
        const { bytesWritten } = await fh.writev(batch, off);
        const want = batch.reduce((sum, b) => sum + b.length, 0);
        if (bytesWritten !== want) throw new Error(`title-snapshot: short write (${bytesWritten} of ${want} bytes)`);
        off += want;
      }
    } finally {
      await fh.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** writeSnapshotFile, synchronously (at shutdown). */
export function writeSnapshotFileSync(file: string, data: readonly Buffer[]): void {
  const temp = tempName(file);
  try {
    const fd = openSync(temp, 'w');
    try {
      let off = 0;
      for (let i = 0; i < data.length; i += WRITEV_MAX) {
        const batch = data.slice(i, i + WRITEV_MAX);
        const want = batch.reduce((sum, b) => sum + b.length, 0);
        const written = writevSync(fd, batch, off);
        if (written !== want) throw new Error(`title-snapshot: short write (${written} of ${want} bytes)`);
        off += want;
      }
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
