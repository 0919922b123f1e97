/**
 * docs/benchmarks.md is shared by several benchmarks: each owns one section between its own HTML
 * comment markers and replaces only that section on each run, leaving the others intact.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Markers around the crawl benchmark's section. */
export const CRAWL_MARKERS = { start: '<!-- crawl:start -->', end: '<!-- crawl:end -->' } as const;
/** Markers around part 2 on each storage engine (written after a run that crawled on PostgreSQL too). */
export const ENGINE_MARKERS = { start: '<!-- crawl-engines:start -->', end: '<!-- crawl-engines:end -->' } as const;
/** Markers around the refresh-cost part of the crawl benchmark (written on its own: `--only=refresh`). */
export const REFRESH_MARKERS = { start: '<!-- refresh:start -->', end: '<!-- refresh:end -->' } as const;

const NEW_DOC = '# Benchmarks\n\nFigures measured on one machine; each section is rewritten by its own benchmark.\n';

/**
 * Returns `doc` with the text between `start` and `end` (markers kept) replaced by `body`, or with
 * a new marked section appended when the markers are absent. Pure. Throws when only one marker is
 * present or they are out of order, rather than guess which part of the file is ours.
 */
export function replaceSection(doc: string, markers: { start: string; end: string }, body: string): string {
  const i = doc.indexOf(markers.start);
  const j = doc.indexOf(markers.end);
  const section = `${markers.start}\n${body.trim()}\n${markers.end}`;
  if (i === -1 && j === -1) {
    const base = doc.trimEnd();
    return `${base}${base === '' ? '' : '\n\n'}${section}\n`;
  }
  if (i === -1 || j === -1 || j < i) {
    throw new Error(
      `benchmarks-doc: the markers ${markers.start} and ${markers.end} are not a pair in order; fix the file by hand`,
    );
  }
  return doc.slice(0, i) + section + doc.slice(j + markers.end.length);
}

/** Writes `body` as the marked section of the markdown file at `file`, creating the file if missing. */
export function writeSection(file: string, markers: { start: string; end: string }, body: string): void {
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : NEW_DOC;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, replaceSection(doc, markers, body));
}

/** The machine a benchmark ran on, for the record. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  ramGiB: number;
  node: string;
  platform: string;
}

/** CPU model, logical cores, RAM, Node version and OS of this machine. */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown CPU',
    cores: cpus.length,
    ramGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}
