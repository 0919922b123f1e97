/** One bookmark as read from an import file, before its URL is judged (import-plan.ts does that). */
export interface BookmarkEntry {
  /** The line of the file it starts on (1-based), for reporting. */
  line: number;
  /** The address as written in the file (entities decoded), untrimmed of nothing but outer spaces. */
  url: string;
  /** Its title, '' when it has none. */
  title: string;
  /** The folder path as the browser shows it, outermost first (browser containers such as "Bookmarks bar" included). */
  folder: string[];
  /** Names that become its labels: its folders below the browser's own containers, and any tags. */
  labelNames: string[];
}

/** Most folders of a bookmark's path that are kept (the outermost ones); deeper folders are left off. */
export const MAX_FOLDER_DEPTH = 10;
/** Longest folder name kept (characters); a longer one is cut. */
export const MAX_FOLDER_NAME_CHARS = 100;
/** Longest folder path stored with a seed ("A / B / C", characters); a longer one is cut. */
export const MAX_FOLDER_PATH_CHARS = 300;

/** Counts the characters a reader looked at, so that a test can hold it to a budget proportional to its input. */
export interface StepCounter {
  steps: number;
}

/** How much a reader of an import file may read. */
export interface ReadOptions {
  /**
   * Most bookmarks wanted: the reader stops after maxEntries + 1, so a result longer than maxEntries
   * says the file holds more (and the rest of it is not read).
   */
  maxEntries?: number;
  /** Where the reader adds the characters it looked at. */
  counter?: StepCounter;
}

/** A folder name as kept: cut to MAX_FOLDER_NAME_CHARS characters (whole code points). */
export function capFolderName(name: string): string {
  return name.length <= MAX_FOLDER_NAME_CHARS
    ? name
    : Array.from(name.slice(0, MAX_FOLDER_NAME_CHARS * 2))
        .slice(0, MAX_FOLDER_NAME_CHARS)
        .join('');
}

export type { ImportFormat } from '../../shared/enumerations.ts';
