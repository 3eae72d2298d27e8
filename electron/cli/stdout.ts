/**
 * The CLI's standard output. On Linux a pipe, a file or a socket is written with `fs.writeSync`: `process.stdout`
 * would load Node's stream stack for it (net, stream and their parts: a tenth of what `missive agent list --json`
 * costs), only to write synchronously too (Node writes pipes, sockets and files synchronously on Linux). A terminal,
 * other systems (where Node writes pipes asynchronously), and everything from a write that does not complete at
 * once on (a full non-blocking pipe: EAGAIN; or any error) go through `process.stdout`, so the output keeps its
 * order and an error is reported as Node reports it. A pipe whose reader has gone (`missive agent list | head -n 2`:
 * EPIPE, on either path) ends the output quietly, as for any command-line tool: the rest has no one to read it.
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

const readerGone = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'EPIPE';

export function createStdout(deps: StdoutDeps = nodeDeps()): Stdout {
  let direct: boolean | undefined;
  /** The pipe's reader has closed it: nothing more is written. */
  let gone = false;
  let heard = false;
  const isDirect = () => (direct ??= deps.platform === 'linux' && deps.direct() === true);
  /** `process.stdout`, an EPIPE of its writes (reported as an 'error' event) ending the output; any other error as Node reports it. */
  const stream = () => {
    const out = deps.stream();
    if (!heard) {
      heard = true;
      out.on?.('error', (error: Error) => {
        if (!readerGone(error)) throw error;
        gone = true;
      });
    }
    return out;
  };
  return {
    write(text) {
      if (gone) return;
      if (!isDirect()) {
        stream().write(text);
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
      } catch (error) {
        if (readerGone(error)) {
          gone = true;
          return;
        }
        direct = false;
        stream().write(bytes.subarray(written));
      }
    },
    get isTTY() {
      return isDirect() ? false : !!stream().isTTY;
    },
  };
}
