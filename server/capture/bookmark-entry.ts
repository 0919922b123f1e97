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

export type { ImportFormat } from '../../shared/enumerations.ts';
