/** A configuration value that cannot be used; its message names the variable and the problem. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
