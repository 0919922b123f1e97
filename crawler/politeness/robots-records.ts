/**
 * The records of a robots.txt, read as RFC 9309 §2.1–2.2 says: groups (user-agent lines and their
 * member lines), Crawl-delay, Sitemap lines. Pure. Linear in the text, and light per line (the text is
 * scanned by index; a line's key is compared in place, and only values become strings of their own), since
 * the crawler primary reads files of up to 500 KiB, that is up to some 60,000 lines.
 */
import type { RobotsRule } from './robots-compile.ts';

/** The largest Crawl-delay we honour; a longer one is cut to this (we re-read robots.txt daily anyway). */
export const ROBOTS_MAX_CRAWL_DELAY_MS = 24 * 60 * 60 * 1000;

/** Characters of a product token, in the crawler's User-Agent and in robots.txt user-agent lines. */
export const TOKEN_RUN = /^[A-Za-z0-9_-]+/;

/** One group: its agents (lower-case tokens or `*`), its rules (patterns as written) and its last valid Crawl-delay. */
export interface Group {
  agents: string[];
  rules: RobotsRule[];
  crawlDelayMs: number | undefined;
}

/** Lines read between two pauses of readRecords (see WORK_PER_PAUSE in robots-compile.ts). */
export const LINES_PER_PAUSE = 2048;
/**
 * Rules one Group holds at most; the next rule starts a group of the same agents (chooseGroups merges them
 * again). An array past about 16,000 entries lives in V8's large-object space, where every young rule
 * stored into it is remembered by the collector: pushing 28,000 rules cost 101 ns each against 26 at
 * 14,000 (robots.txt "many wildcard rules" grew 12.5x from 63 KB to its 500 KiB cap, three times in a row).
 */
export const RULES_PER_GROUP = 4096;

/** The keys we read; any other line is skipped. */
const KEYS = ['user-agent', 'allow', 'disallow', 'crawl-delay', 'sitemap'] as const;
type Key = (typeof KEYS)[number];

/**
 * The groups and sitemaps of a robots.txt, per RFC 9309 §2.1–2.2: a group is one or more
 * user-agent lines followed by its member lines, and ends only at a user-agent line that follows a
 * member line. Members are allow, disallow and crawl-delay (crawl-delay is not in the RFC; like
 * robots-parser, Bing and Yandex we read it as a member of the group it stands in, so
 * `User-agent: *`, `Crawl-delay: 5`, `User-agent: X`, `Disallow: /` gives `*` a delay, not X's
 * rules). Sitemap and unknown lines are other records: kept or dropped, they never end a group.
 * Member lines before the first user-agent line belong to no group and are ignored. Lines end at CR,
 * LF or CRLF. A generator that pauses (yields) every LINES_PER_PAUSE lines, so that its caller can let
 * other work run between them; it returns the records.
 */
export function* readRecords(
  text: string,
  robotsUrl: string,
): Generator<void, { groups: Group[]; sitemaps: string[] }> {
  const reader = new RecordReader(text, robotsUrl);
  // The lines are read by a plain method, which V8 optimizes as it runs; a generator's own loop it would not.
  while (!reader.read(LINES_PER_PAUSE)) yield;
  return { groups: reader.groups, sitemaps: [...reader.sitemaps] };
}

/** readRecords' state between two pauses. */
class RecordReader {
  readonly groups: Group[] = [];
  readonly sitemaps = new Set<string>();
  private current: Group | undefined;
  /** The current group's agents, so that a name listed again is kept once (a file may repeat one 100,000 times). */
  private currentAgents = new Set<string>();
  private inAgentLines = false;
  private start = 0;
  private readonly scanner: Scanner;
  private readonly line: Line = { key: 'allow', valueStart: 0, valueEnd: 0 };

  constructor(
    private readonly text: string,
    private readonly robotsUrl: string,
  ) {
    this.scanner = new Scanner(text);
  }

  /** Reads up to `lines` more lines; true once the text is read. */
  read(lines: number): boolean {
    const { text, scanner, line } = this;
    let start = this.start;
    for (let n = 0; n < lines && start < text.length; n++) {
      const end = scanner.lineEnd(start);
      const known = splitLine(scanner, start, end, line);
      start = text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a ? end + 2 : end + 1;
      if (known) this.record(line.key, text.slice(line.valueStart, line.valueEnd));
    }
    this.start = start;
    return start >= text.length;
  }

  /** Takes one known line into the groups or the sitemaps. */
  private record(key: Key, value: string): void {
    if (key === 'sitemap') {
      const url = sitemapUrl(value, this.robotsUrl);
      if (url) this.sitemaps.add(url);
    } else if (key === 'user-agent') {
      if (!this.current || !this.inAgentLines) {
        this.current = { agents: [], rules: [], crawlDelayMs: undefined };
        this.currentAgents = new Set();
        this.groups.push(this.current);
      }
      const agent = agentToken(value);
      if (agent && !this.currentAgents.has(agent)) {
        this.currentAgents.add(agent);
        this.current.agents.push(agent);
      }
      this.inAgentLines = true;
    } else if (this.current) {
      this.inAgentLines = false;
      if (key === 'crawl-delay') {
        const ms = crawlDelayToMs(value);
        if (ms !== undefined) this.current.crawlDelayMs = ms;
      } else if (value !== '') {
        // An empty allow/disallow matches nothing; it still ends the agent lines (above).
        if (this.current.rules.length === RULES_PER_GROUP) {
          this.current = { agents: this.current.agents, rules: [], crawlDelayMs: undefined };
          this.groups.push(this.current);
        }
        this.current.rules.push({ allow: key === 'allow', pattern: value });
      }
    }
  }
}

/** A line's key and where its value is in the text (see splitLine). */
interface Line {
  key: Key;
  valueStart: number;
  valueEnd: number;
}

/**
 * Finds the next CR, LF, `#` or `:` in a text read from start to end. Each is looked up again only
 * once the reading has passed it, so the whole text is searched once per character, not once per line
 * (a file of 60,000 lines and no `#` would otherwise be searched to its end 60,000 times).
 */
class Scanner {
  /** The last position found for each character (CR, LF, `#`, `:`), Infinity past the last. */
  private readonly found = [-1, -1, -1, -1];
  constructor(readonly text: string) {}
  /** The index of the first `ch` at or after `from` (`from` never decreasing between calls), or Infinity. */
  next(ch: '\r' | '\n' | '#' | ':', from: number): number {
    const slot = ch === '\r' ? 0 : ch === '\n' ? 1 : ch === '#' ? 2 : 3;
    let at = this.found[slot];
    if (at < from) {
      at = this.text.indexOf(ch, from);
      this.found[slot] = at = at < 0 ? Infinity : at;
    }
    return at;
  }
  /** Where the line starting at `start` ends: the next CR or LF, or the end of the text. */
  lineEnd(start: number): number {
    return Math.min(this.next('\r', start), this.next('\n', start), this.text.length);
  }
}

/**
 * Reads the line `text[start, end)` into `line`: its key and trimmed value, comments removed. False
 * for blank, comment-only and unknown lines. Keys are matched without regard to ASCII case. Like
 * Google's parser we also accept a known key followed by whitespace instead of a colon (`disallow /`):
 * it is obvious what it means, and reading it is the polite choice.
 */
function splitLine(scanner: Scanner, start: number, end: number, line: Line): boolean {
  const text = scanner.text;
  end = Math.min(end, scanner.next('#', start));
  while (start < end && isWs(text.charCodeAt(start))) start++;
  while (end > start && isWs(text.charCodeAt(end - 1))) end--;
  if (start === end) return false;
  const colon = scanner.next(':', start);
  let keyEnd: number;
  let valueStart: number;
  if (colon < end) {
    keyEnd = colon;
    while (keyEnd > start && isWs(text.charCodeAt(keyEnd - 1))) keyEnd--;
    valueStart = colon + 1;
  } else {
    keyEnd = start;
    while (keyEnd < end && !isWs(text.charCodeAt(keyEnd))) keyEnd++;
    if (keyEnd === end) return false;
    valueStart = keyEnd;
  }
  const key = keyAt(text, start, keyEnd);
  if (key === undefined) return false;
  while (valueStart < end && isWs(text.charCodeAt(valueStart))) valueStart++;
  line.key = key;
  line.valueStart = valueStart;
  line.valueEnd = end;
  return true;
}

/** The key `text[start, end)` names, ASCII case ignored, or undefined for any other text. */
function keyAt(text: string, start: number, end: number): Key | undefined {
  for (const key of KEYS) {
    if (key.length !== end - start) continue;
    let i = 0;
    // `| 0x20` lower-cases ASCII letters; it also maps CR to `-`, and no line holds a CR.
    while (i < key.length && (text.charCodeAt(start + i) | 0x20) === key.charCodeAt(i)) i++;
    if (i === key.length) return key;
  }
  return undefined;
}

/** Space or tab: RFC 9309 whitespace (String#trim would also eat a stray U+FEFF, which spoils its line, as in Google's parser). */
const isWs = (code: number): boolean => code === 0x20 || code === 0x09;

/**
 * The agent a user-agent value names: `*` (also `* anything`), else the leading token run
 * lower-cased (`FooBot/1.0` → `foobot`, `Foo Bar` → `foo`, as Google reads them), else '' (matches
 * nothing).
 */
function agentToken(value: string): string {
  if (value === '*' || /^\*[ \t]/.test(value)) return '*';
  return (TOKEN_RUN.exec(value)?.[0] ?? '').toLowerCase();
}

/**
 * A Crawl-delay value (decimal seconds: `10`, `0.5`, `.25`) in whole milliseconds, rounded up and
 * capped at ROBOTS_MAX_CRAWL_DELAY_MS. Anything else (negative, `NaN`, `1e3`, `5s`, empty) is
 * ignored: undefined. Computed on the digits, so `1.1` is 1100 ms, not 1101.
 */
function crawlDelayToMs(value: string): number | undefined {
  const m = /^(\d*)(?:\.(\d*))?$/.exec(value);
  if (!m || (m[1] === '' && !m[2])) return undefined;
  const whole = m[1].replace(/^0+/, '');
  const fraction = m[2] ?? '';
  if (whole.length > 6) return ROBOTS_MAX_CRAWL_DELAY_MS; // over a million seconds
  const roundUp = /[1-9]/.test(fraction.slice(3)) ? 1 : 0; // a part of a millisecond left over
  const ms = Number(whole || '0') * 1000 + Number(fraction.slice(0, 3).padEnd(3, '0')) + roundUp;
  return Math.min(ms, ROBOTS_MAX_CRAWL_DELAY_MS);
}

/** A Sitemap value as an absolute http(s) URL (relative ones resolved against robots.txt), or null. */
function sitemapUrl(value: string, robotsUrl: string): string | null {
  if (value === '') return null;
  try {
    const url = new URL(value, robotsUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}
