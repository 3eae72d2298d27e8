/** What every OAuth2 step needs: where tokens are cached, how to reach the token endpoint, and how to tell the user. */
import type { Dispatcher } from 'undici';
import type { SecretStore } from '../secret-store.js';

/** What the user must do to approve a device-code login (RFC 8628 §3.3): open the URL and enter the code. */
export interface DeviceCodePrompt {
  auth_ref: string;
  verification_uri: string;
  verification_uri_complete: string | null;
  user_code: string;
  expires_in: number;
}

export interface OAuthContext {
  /** The profile the token cache is keyed under (`<profile>/<ref>`). */
  profile: string;
  secrets: SecretStore;
  timeoutMs: number;
  dispatcher?: Dispatcher;
  /** Shows the device-code prompt (CLI: stderr; GUI: the `auth.deviceCode` event). */
  onDeviceCode?: (prompt: DeviceCodePrompt) => void;
  /** Waits between device-code polls (tests shorten it). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}
