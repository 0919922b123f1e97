/**
 * Lantern's configuration: the settings declared in config-settings.ts, parsed from the environment once at
 * start (loadConfig, which server/main.ts hands process.env; nothing else reads it), the setting derived from
 * them (the User-Agent with its contact), the check that an exposed Lantern has a secret, and the configuration
 * handed to the crawler primary (configArgument, configFromArgument).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { ConfigError } from './config-error.ts';
import { defaultUserAgent, SECRET_MIN_CHARS, SETTINGS, type Parsed } from './config-settings.ts';
import { isLoopbackName } from './host-names.ts';
import { projectPath } from './project-root.ts';

export { ConfigError } from './config-error.ts';
export { CONTACT_MAX_CHARS, SECRET_MAX_CHARS, SECRET_MIN_CHARS, SETTINGS } from './config-settings.ts';

/** Lantern's version, read once from package.json (it appears in the User-Agent). */
export const VERSION: string = (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string })
  .version;

/**
 * Every setting Lantern reads from its environment, parsed and validated once at start: one field per entry of
 * SETTINGS (config-settings.ts, where each is described), the User-Agent completed with CRAWL_CONTACT.
 */
export interface Config extends Omit<Parsed, 'userAgent'> {
  /** The User-Agent, with CRAWL_CONTACT in it as `+contact` when one is given. */
  userAgent: string;
}

type Env = Record<string, string | undefined>;

/** What an unset variable gives, per setting (SETTINGS' defaults, parsed). */
function declaredDefaults(): Omit<Config, 'crawlWorkers' | 'userAgent'> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS)) out[key] = setting.parse(undefined);
  return out as unknown as Omit<Config, 'crawlWorkers' | 'userAgent'>;
}

/** The defaults, derived from SETTINGS (README.md's configuration table, the contract, says the same). */
export const DEFAULTS = {
  ...declaredDefaults(),
  /** Computed on each call: the number of CPUs, within CRAWL_WORKERS' bounds. */
  crawlWorkers: (): number => SETTINGS.crawlWorkers.parse(undefined),
  userAgent: defaultUserAgent(VERSION),
  /** The product and comment the User-Agent has when CRAWL_CONTACT names its owner. */
  userAgentWithContact: (contact: string) => `LanternBot/${VERSION} (personal search engine; +${contact})`,
};

/** How the one-line refusals tell a person to set a secret. */
export const SECRET_HINT = `set LANTERN_SECRET to a secret of at least ${SECRET_MIN_CHARS} characters, for example LANTERN_SECRET=$(openssl rand -base64 24)`;

/** The User-Agent: CRAWL_USER_AGENT or the default, with `+contact` added when CRAWL_CONTACT is set. */
function userAgentWith(ua: string | null, contactText: string | null): string {
  if (contactText === null) return ua ?? DEFAULTS.userAgent;
  if (ua === null) return DEFAULTS.userAgentWithContact(contactText);
  return ua.includes(contactText) ? ua : `${ua} (+${contactText})`;
}

/**
 * Lantern reachable from other machines needs a secret: bound to an address that is not loopback, or
 * named in PUBLIC_HOSTS by a name that is not (a reverse proxy on this machine makes a loopback-bound
 * Lantern reachable by exactly the names it forwards). Throws the one-line refusal.
 */
function requireSecretWhenExposed(config: Config): void {
  if (config.secret !== null) return;
  if (!isLoopbackName(config.host)) {
    throw new ConfigError(
      `HOST=${config.host} makes Lantern reachable from other machines, so it needs a secret: ${SECRET_HINT} (or set HOST=127.0.0.1 to keep it on this machine)`,
    );
  }
  const exposed = config.publicHosts.find((h) => !isLoopbackName(h.replace(/:\d+$/, '')));
  if (exposed !== undefined) {
    throw new ConfigError(
      `PUBLIC_HOSTS names ${exposed}, by which Lantern is reached from other machines, so it needs a secret: ${SECRET_HINT}`,
    );
  }
}

/**
 * Parses the environment into a Config, each setting by its declaration in SETTINGS (in their order); throws
 * ConfigError (one line) for the first bad value.
 */
export function loadConfig(env: Env): Config {
  const parsed: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS)) parsed[key] = setting.parse(env[setting.env]);
  const p = parsed as Parsed;
  const config: Config = { ...p, userAgent: userAgentWith(p.userAgent, p.crawlContact) };
  requireSecretWhenExposed(config);
  return config;
}

/**
 * The crawler primary is forked with the server's parsed configuration as its one argument (JSON),
 * so that the environment is read and validated once, by the server: `configArgument` writes it,
 * `configFromArgument` reads it back in the primary. A missing or unreadable argument is a ConfigError.
 * The secret and DATABASE_URL (which may hold a password) are left out: a process's arguments are
 * readable by every user of the machine (/proc/PID/cmdline, ps). The crawler has no use for the secret;
 * the database URL reaches the primary in the environment it inherits from the server (readable only by
 * the user it runs as, /proc/PID/environ), parsed again by `configFromArgument`.
 */
export function configArgument(config: Config): string {
  return JSON.stringify({ ...config, secret: null, databaseUrl: null });
}

/**
 * The configuration `configArgument` wrote (see there), with DATABASE_URL parsed from `env`: the
 * environment the primary inherited from the server, which holds the same value the server parsed.
 */
export function configFromArgument(arg: string | undefined, env: Env = {}): Config {
  let parsed: unknown;
  try {
    parsed = arg === undefined ? undefined : JSON.parse(arg);
  } catch {
    parsed = undefined;
  }
  const keys = Object.keys(loadConfig({}));
  if (typeof parsed !== 'object' || parsed === null || keys.some((k) => !(k in parsed))) {
    throw new ConfigError(
      "config: the crawler primary takes the server's configuration as its argument; start Lantern with npm start",
    );
  }
  return { ...(parsed as Config), databaseUrl: SETTINGS.databaseUrl.parse(env[SETTINGS.databaseUrl.env]) };
}

/**
 * This crawler node's id among the nodes sharing one PostgreSQL (crawl_nodes.node_id, issue 29): CRAWL_NODE_ID,
 * or this machine's host name and the process id of the crawler primary (`pid`), unique while it runs.
 */
export function crawlNodeId(config: Pick<Config, 'crawlNodeId'>, pid: number = process.pid): string {
  return config.crawlNodeId ?? `${os.hostname()}-${pid}`;
}
