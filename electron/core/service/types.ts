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
  user?: string;
  logFile: string;
  uid: number;
}
