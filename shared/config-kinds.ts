/**
 * The kinds of setting Lantern reads from its environment. Each builder takes one setting's declaration (its
 * variable, bounds, default and one-line description) and returns a `Setting`: the declaration plus the parser
 * that turns the variable's text into the value, or throws a one-line ConfigError naming the variable. An unset
 * or blank variable is the default. Pure: no environment is read here (config.ts hands each parser its text).
 */
import net from 'node:net';
import path from 'node:path';
import { ConfigError } from './config-error.ts';

/** One setting, declared once: the configuration table (config-settings.ts) is made of these. */
export interface Setting<T> {
  /** The environment variable. */
  env: string;
  /** What it sets, in one line (README.md's table says it at length). */
  about: string;
  /** The default as README.md's configuration table shows it (`3000`, `7d`, (none), ...). */
  shown: string;
  /** The variable's text (undefined when unset) as the value; throws ConfigError for a bad one. */
  parse(raw: string | undefined): T;
}

/** What every declaration gives: the variable and its one-line description. */
interface Declared {
  env: string;
  about: string;
}

const blank = (raw: string | undefined): raw is undefined => raw === undefined || raw.trim() === '';
const code = (text: string | number) => `\`${text}\``;
/** README.md's default cell of a setting that has none. */
export const NONE = '(none)';

/** A whole number within [min, max]; `default` may be computed (the number of CPUs), then `shown` says how. */
export function integer(
  d: Declared & { min: number; max: number; default: number | (() => number); shown?: string },
): Setting<number> {
  return {
    env: d.env,
    about: d.about,
    shown: d.shown ?? code(typeof d.default === 'number' ? d.default : d.default()),
    parse(raw) {
      if (blank(raw)) return typeof d.default === 'number' ? d.default : d.default();
      const value = Number(raw.trim());
      if (!/^[+-]?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < d.min || value > d.max) {
        throw new ConfigError(`${d.env} must be an integer between ${d.min} and ${d.max}, got ${JSON.stringify(raw)}`);
      }
      return value;
    },
  };
}

/** A decimal number such as `5` or `2.5` within [min, max]. */
export function decimal(d: Declared & { min: number; max: number; default: number }): Setting<number> {
  return {
    env: d.env,
    about: d.about,
    shown: code(d.default),
    parse(raw) {
      if (blank(raw)) return d.default;
      const v = raw.trim();
      const value = Number(v);
      if (!/^\d+(\.\d+)?$/.test(v) || value < d.min || value > d.max) {
        throw new ConfigError(
          `${d.env} must be a number from ${d.min} to ${d.max} such as 5 or 2.5, got ${JSON.stringify(raw)}`,
        );
      }
      return value;
    },
  };
}

/** 1 or 0 (also true/false, yes/no, on/off). */
export function flag(d: Declared & { default: boolean }): Setting<boolean> {
  return {
    env: d.env,
    about: d.about,
    shown: code(d.default ? 1 : 0),
    parse(raw) {
      if (blank(raw)) return d.default;
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(`${d.env} must be 1 or 0, got ${JSON.stringify(raw)}`);
    },
  };
}

/** One of a fixed set of words (case-insensitive). */
export function choice<const T extends string>(d: Declared & { words: readonly T[]; default: T }): Setting<T> {
  return {
    env: d.env,
    about: d.about,
    shown: code(d.default),
    parse(raw) {
      if (blank(raw)) return d.default;
      const v = raw.trim().toLowerCase();
      if (!(d.words as readonly string[]).includes(v))
        throw new ConfigError(`${d.env} must be one of ${d.words.join(', ')}, got ${JSON.stringify(raw)}`);
      return v as T;
    },
  };
}

/** Text, trimmed; `check` returns the problem with a value (e.g. 'must be an IP address or host name'). */
export function text(
  d: Declared & { default: string; check?: (v: string) => string | undefined; shown?: string },
): Setting<string> {
  const optional = optionalText(d);
  return {
    env: d.env,
    about: d.about,
    shown: d.shown ?? code(d.default),
    parse: (raw) => optional.parse(raw) ?? d.default,
  };
}

/** Text, trimmed, or null when unset; `check` as for `text`. `shown` is the default README.md names. */
export function optionalText(
  d: Declared & { check?: (v: string) => string | undefined; shown?: string },
): Setting<string | null> {
  return {
    env: d.env,
    about: d.about,
    shown: d.shown ?? NONE,
    parse(raw) {
      if (blank(raw)) return null;
      const problem = d.check?.(raw.trim());
      if (problem) throw new ConfigError(`${d.env} ${problem}, got ${JSON.stringify(raw)}`);
      return raw.trim();
    },
  };
}

/** A path, made absolute against the directory Lantern starts in; `default` null = none. */
export function filePath<D extends string | null>(d: Declared & { default: D }): Setting<string | D> {
  return {
    env: d.env,
    about: d.about,
    shown: d.default === null ? NONE : code(d.default),
    parse(raw) {
      const v = blank(raw) ? d.default : raw.trim();
      return v === null ? (null as D) : path.resolve(v);
    },
  };
}

const UNIT_BYTES: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };
const MAX_SIZE_BYTES = 1024 ** 5; // 1 PB: beyond any disk, short of Number's exact integers

/**
 * A size such as `500MB`, `10GB` or `1.5TB` in bytes (units B, KB, MB, GB, TB, each 1024 of the one
 * before; case-insensitive), at least `minBytes`; `0` (or `off`) is 0, meaning no limit.
 */
export function size(d: Declared & { minBytes: number; default: string }): Setting<number> {
  return {
    env: d.env,
    about: d.about,
    shown: code(d.default),
    parse(raw) {
      const v = (blank(raw) ? d.default : raw.trim()).toLowerCase();
      if (v === '0' || v === 'off') return 0;
      const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)$/.exec(v);
      const bytes = m ? Math.round(Number(m[1]) * UNIT_BYTES[m[2]]) : NaN;
      if (!(bytes >= d.minBytes && bytes <= MAX_SIZE_BYTES)) {
        throw new ConfigError(
          `${d.env} must be a size from ${d.minBytes / 1024 ** 2}MB to 1024TB such as 500MB or 10GB (units B, KB, MB, GB, TB), or 0 for no limit, got ${JSON.stringify(raw ?? '')}`,
        );
      }
      return bytes;
    },
  };
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_DURATION_MS = 365 * UNIT_MS.d;

/** A duration such as `90s`, `30m`, `12h` or `7d` in milliseconds, 1 s to 365 d; `0` (or `off`) is 0 where `never` allows it. */
export function duration(d: Declared & { default: string; never: boolean }): Setting<number> {
  return {
    env: d.env,
    about: d.about,
    shown: code(d.default),
    parse(raw) {
      const v = (blank(raw) ? d.default : raw.trim()).toLowerCase();
      if (d.never && (v === '0' || v === 'off')) return 0;
      const m = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(v);
      const ms = m ? Math.round(Number(m[1]) * UNIT_MS[m[2]]) : NaN;
      if (!(ms >= 1000 && ms <= MAX_DURATION_MS)) {
        throw new ConfigError(
          `${d.env} must be a duration from 1s to 365d such as 12h or 7d (units s, m, h, d)${d.never ? ', or 0 for never' : ''}, got ${JSON.stringify(raw ?? '')}`,
        );
      }
      return ms;
    },
  };
}

/** A host name: letters, digits and inner hyphens, in dot-separated labels (lower case). */
export const HOST_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/** Comma-separated entries, trimmed, empty ones skipped. */
const entries = (raw: string | undefined) =>
  (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');

/** Comma-separated `name` or `name:port` (IPv6 in brackets), lower-cased, each once; unset is none. */
export function hostList(d: Declared): Setting<string[]> {
  return {
    env: d.env,
    about: d.about,
    shown: NONE,
    parse(raw) {
      const list = entries(raw).map((e) => e.toLowerCase());
      for (const entry of list) {
        const m = /^(\[[0-9a-f:.]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(entry);
        const host = m?.[1] ?? '';
        const port = m?.[2] === undefined ? 1 : Number(m[2]);
        const hostOk = host.startsWith('[') ? net.isIPv6(host.slice(1, -1)) : HOST_NAME.test(host);
        if (!hostOk || port < 1 || port > 65535) {
          throw new ConfigError(
            `${d.env} takes host names or addresses, each optionally with :port, separated by commas (e.g. lantern.example.com,lantern.lan:3000), got ${JSON.stringify(entry)}`,
          );
        }
      }
      return [...new Set(list)];
    },
  };
}

/** Comma-separated `name=address` pairs (an IPv4 or IPv6 address, brackets allowed), like curl's --resolve. */
export function resolveMap(d: Declared): Setting<Record<string, string>> {
  return {
    env: d.env,
    about: d.about,
    shown: NONE,
    parse(raw) {
      const out: Record<string, string> = {};
      for (const entry of entries(raw)) {
        const m = /^([^=\s]+)=\[?([0-9a-fA-F:.]+)\]?$/.exec(entry);
        const host = m?.[1].toLowerCase() ?? '';
        if (!m || !HOST_NAME.test(host) || net.isIP(m[2]) === 0) {
          throw new ConfigError(
            `${d.env} takes name=address pairs separated by commas (e.g. docs.example.test=127.0.0.5,www.example.test=127.0.0.5), got ${JSON.stringify(entry)}`,
          );
        }
        out[host] = m[2];
      }
      return out;
    },
  };
}

/**
 * A secret: unset or empty is null; otherwise `minChars` to `maxChars` printable characters with no spaces at
 * either end, used as given. A refused value is never echoed in the message: it is (nearly) a secret.
 */
export function secret(d: Declared & { minChars: number; maxChars: number; example: string }): Setting<string | null> {
  return {
    env: d.env,
    about: d.about,
    shown: NONE,
    parse(raw) {
      if (raw === undefined || raw === '') return null;
      if (
        raw.length < d.minChars ||
        raw.length > d.maxChars ||
        /[\u0000-\u001f\u007f]/.test(raw) ||
        raw.trim() !== raw
      ) {
        throw new ConfigError(
          `${d.env} must be ${d.minChars} to ${d.maxChars} characters with no control characters and no spaces at either end (got ${raw.length} characters); for example ${d.example}`,
        );
      }
      return raw;
    },
  };
}

/**
 * A contact: an http(s) URL or an e-mail address of at most `maxChars`, without spaces, parentheses or quotes
 * (it goes inside the User-Agent's comment); null when unset.
 */
export function contact(d: Declared & { maxChars: number }): Setting<string | null> {
  return {
    env: d.env,
    about: d.about,
    shown: NONE,
    parse(raw) {
      if (blank(raw)) return null;
      const v = raw.trim();
      const plain = v.length <= d.maxChars && !/[\s()<>"\\;,\u0000-\u001f\u007f]/.test(v);
      const email = /^[^@]+@[^@]+\.[^@.]+$/.test(v);
      let url = false;
      try {
        const u = new URL(v);
        url = (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && /^https?:\/\//i.test(v);
      } catch {
        url = false; // not a URL: an e-mail address or nothing usable, judged below
      }
      if (!plain || !(email || url)) {
        throw new ConfigError(
          `${d.env} must be an http(s) URL or an e-mail address of at most ${d.maxChars} characters, without spaces, parentheses or quotes (e.g. https://example.org/lantern or me@example.org), got ${JSON.stringify(raw)}`,
        );
      }
      return v;
    },
  };
}
