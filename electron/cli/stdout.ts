/**
 * The CLI's standard output. On Linux a pipe, a file or a socket is written with `fs.writeSync`: `process.stdout`
 * would load Node's stream stack for it (net, stream and their parts: a tenth of what `missive agent list --json`
 * costs), only to write synchronously too (Node writes pipes, sockets and files synchronously on Linux). A terminal,
 * other systems (where Node writes pipes asynchronously), and everything from a write that does not complete at
 * once on (a full non-blocking pipe: EAGAIN; or any error) go through `process.stdout`, so the output keeps its
 * order and an error is reported as Node reports it.
 */
import { fstatSync, writeSync } from 'node:fs';

export interface StdoutDeps {
  platform: NodeJS.Platform;
  /** Whether fd 1 is a pipe, a file or a socket (undefined: it cannot be told, e.g. fd 1 is closed). */
  direct: () => boolean | undefined;
  writeSync: (buffer: Uint8Array, offset: number) => number;
  /** `process.stdout`, created on first use. */
  stream: () => NodeJS.WriteStream;
}

const nodeDeps = (): StdoutDeps => ({
  platform: process.platform,
  direct: () => {
    try {
      const stat = fstatSync(1);
      return stat.isFIFO() || stat.isFile() || stat.isSocket();
    } catch {
      return undefined;
    }
  },
  writeSync: (buffer, offset) => writeSync(1, buffer, offset),
  stream: () => process.stdout,
});

export interface Stdout {
  write(text: string): void;
  /** Only a terminal is a TTY; asked of `process.stdout` when fd 1 is not a pipe, a file or a socket. */
  readonly isTTY: boolean;
}

export function createStdout(deps: StdoutDeps = nodeDeps()): Stdout {
  let direct: boolean | undefined;
  const isDirect = () => (direct ??= deps.platform === 'linux' && deps.direct() === true);
  return {
    write(text) {
      if (!isDirect()) {
        deps.stream().write(text);
        return;
      }
      const bytes = Buffer.from(text, 'utf8');
      let written = 0;
      try {
        while (written < bytes.length) {
          const n = deps.writeSync(bytes, written);
          if (!(n > 0)) throw new Error('no progress');
          written += n;
        }
      } catch {
        direct = false;
        deps.stream().write(bytes.subarray(written));
      }
    },
    get isTTY() {
      return isDirect() ? false : !!deps.stream().isTTY;
    },
  };
}
