/**
 * A robots.txt as a crawler worker reads and compiles it (crawler/politeness/robots.ts compileRobots) and
 * sends it to the primary in a robots job's result (protocol.ts FetchResult.robotsRules); the primary
 * adopts it and stores it with the host's row. A shape of the protocol, so it stands on the floor below
 * both sides. Types only.
 */

/** A robots.txt read and compiled for one product token: JSON-able, it crosses IPC and is stored with its host. */
export interface CompiledRobots {
  /** The product token (lower-cased) whose group was chosen: rules compiled for another crawler name do not apply. */
  token: string;
  rules: CompactRules;
  /** Crawl-delay of our group in whole milliseconds (rounded up, capped at 24 h), or null. */
  crawlDelayMs: number | null;
  /** Absolute http(s) URLs of the file's `Sitemap:` lines (wherever they stand), in order, deduplicated. */
  sitemaps: string[];
}

/**
 * A group's rules, compiled (crawler/politeness/robots-compile.ts). Prefix `i` is `prefixes[i]`; its wildcard rules
 * are `j` in `[wildAt[i], wildAt[i + 1])`; rule `j`'s segments are `k` in `[segAt[j], segAt[j + 1])`;
 * segment `k` is `chars.slice(charAt[k], charAt[k + 1])`. Keys are -1 where there is no rule.
 */
export interface CompactRules {
  /** Rules left once equal ones are merged. */
  size: number;
  /** Distinct literal prefixes, sorted as JavaScript compares strings. */
  prefixes: string[];
  /** For each prefix, the index of the longest other prefix it starts with, or -1. */
  parent: number[];
  /** For each prefix, the highest key of the rules that are that literal (no `*`, no `$`). */
  literalKey: number[];
  /** For each prefix, the highest key of the rules that are exactly that path (`$`, no `*`). */
  exactKey: number[];
  wildAt: number[];
  key: number[];
  /** 1 when the rule's last segment must end the path. */
  anchored: number[];
  /** The shortest path the rule can match: prefix and segments. */
  minLength: number[];
  segAt: number[];
  charAt: number[];
  chars: string;
}
