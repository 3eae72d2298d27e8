/**
 * A2A protocol generations missive speaks. `1.0` is the current wire (PascalCase JSON-RPC methods, `/message:send`,
 * `application/a2a+json`, `TASK_STATE_*`); `0.3` is the wire of the v0.3 line and, for JSON-RPC, of v0.2 agents too
 * (`message/send`, `/v1/message:send`, `kind` discriminators, lowercase states). Every local row, output and exit code
 * is the same whichever dialect carried it.
 */

export type Dialect = '1.0' | '0.3';

/** `0.3`, `0.3.0`, `0.2.5` → legacy; `1.0`, `1.1`, `2.0` → current. */
export function isLegacyVersion(version: string | null | undefined): boolean {
  const match = /^\s*v?(\d+)(?:\.(\d+))?/.exec(version ?? '');
  return match !== null && Number(match[1]) === 0;
}

/** The dialect for an interface's declared protocol version; an unknown version is spoken as 1.0. */
export const dialectFor = (version: string | null | undefined): Dialect => (isLegacyVersion(version) ? '0.3' : '1.0');

/** What a card's shape says about its generation: v1.0 lists supportedInterfaces, v0.3 has url + preferredTransport, v0.2 only url. */
export type CardFormat = '1.0' | '0.3' | '0.2';
