/** The shape of one gateway service: what the renderers and the installer read (see spec.ts, which builds it). */
export type ServicePlatform = 'linux' | 'darwin';
export type ServiceScope = 'user' | 'system';

export interface ServiceSpec {
  platform: ServicePlatform;
  scope: ServiceScope;
  profile: string;
  /** systemd unit name or launchd label. */
  name: string;
  label: string;
  /** Where the file goes (inside `root` when one is given, for tests). */
  path: string;
  /** What the service runs: absolute node, absolute bin, `gateway run --profile P`. */
  argv: string[];
  env: Array<[string, string]>;
  /**
   * Files the service reads a secret from, never the secret itself: systemd loads each with `LoadCredential=ID:source`
   * and points `env` at `%d/ID` (its credentials directory); launchd sets `env` to `source`, a 0600 file.
   */
  credentials?: ServiceCredential[];
  user?: string;
  logFile: string;
  uid: number;
}

/** A secret the service reads from a file (the store's password): see `ServiceSpec.credentials`. */
export interface ServiceCredential {
  /** The systemd credential ID (`missive-store-password`). */
  id: string;
  /** The file that holds the secret (0600, owned by the service's user). */
  source: string;
  /** The variable that names the file to the service (`MISSIVE_STORE_PASSWORD_FILE`). */
  env: string;
}
