/**
 * The CLI's standard output (electron/cli/stdout.ts): on Linux a pipe or a file is written directly, whole, in order;
 * a terminal, another system, or a write that cannot complete goes through process.stdout from then on.
 */
import { describe, expect, it } from 'vitest';
import { createStdout, type StdoutDeps } from '../../electron/cli/stdout.js';

/** A fake fd 1 that accepts at most `chunk` bytes per write and fails with `failAt` (an errno code) at that write. */
function fakeDeps(over: Partial<StdoutDeps> & { chunk?: number; failAt?: { call: number; code: string }; tty?: boolean } = {}) {
  const direct: Buffer[] = [];
  const streamed: Array<string | Uint8Array> = [];
  let calls = 0;
  let streams = 0;
  const deps: StdoutDeps = {
    platform: 'linux',
    direct: () => true,
    writeSync: (buffer, offset) => {
      calls++;
      if (over.failAt?.call === calls) throw Object.assign(new Error(over.failAt.code), { code: over.failAt.code });
      const n = Math.min(over.chunk ?? Infinity, buffer.length - offset);
      direct.push(Buffer.from(buffer.subarray(offset, offset + n)));
      return n;
    },
    stream: () => {
      streams++;
      return { write: (data: string | Uint8Array) => streamed.push(data), isTTY: over.tty ?? false } as unknown as NodeJS.WriteStream;
    },
    ...over,
  };
  return {
    deps,
    direct,
    streamed,
    streams: () => streams,
    text: () => Buffer.concat(direct).toString('utf8') + streamed.map((d) => Buffer.from(d).toString('utf8')).join(''),
  };
}

describe('CLI stdout', () => {
  it('ends the output quietly when the reader of the pipe has gone (EPIPE), writing nothing more', () => {
    const fake = fakeDeps({ failAt: { call: 2, code: 'EPIPE' } });
    const out = createStdout(fake.deps);
    out.write('first\n');
    expect(() => out.write('second\n')).not.toThrow();
    out.write('third\n');
    expect(fake.text()).toBe('first\n');
    expect(fake.streams()).toBe(0);
  });

  it("ends the output quietly when process.stdout reports EPIPE, and leaves any other error of it to Node's report", () => {
    const listeners: Array<(error: Error) => void> = [];
    const written: string[] = [];
    const stream = { write: (t: string) => written.push(t), on: (_: string, f: (error: Error) => void) => listeners.push(f), isTTY: false };
    const out = createStdout({ platform: 'darwin', direct: () => true, writeSync: () => 0, stream: () => stream as unknown as NodeJS.WriteStream });
    out.write('one\n');
    expect(() => listeners[0]!(Object.assign(new Error('write EACCES'), { code: 'EACCES' }))).toThrow(/EACCES/);
    listeners[0]!(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    out.write('two\n');
    expect(written).toEqual(['one\n']);
    expect(listeners).toHaveLength(1);
  });

  it('writes a pipe or a file on Linux directly, whole, through partial writes, without creating process.stdout', () => {
    const fake = fakeDeps({ chunk: 7 });
    const out = createStdout(fake.deps);
    out.write('{"é": "ünïcode"}\n');
    out.write('second\n');
    expect(fake.text()).toBe('{"é": "ünïcode"}\nsecond\n');
    expect(out.isTTY).toBe(false);
    expect(fake.streams()).toBe(0);
  });

  it('hands the rest to process.stdout when a write fails (a full non-blocking pipe), and keeps using it', () => {
    const fake = fakeDeps({ chunk: 4, failAt: { call: 3, code: 'EAGAIN' } });
    const out = createStdout(fake.deps);
    out.write('0123456789abcdef');
    out.write('next');
    expect(fake.text()).toBe('0123456789abcdefnext');
    expect(Buffer.concat(fake.direct).toString()).toBe('01234567');
    expect(fake.streamed.map((d) => Buffer.from(d).toString())).toEqual(['89abcdef', 'next']);
  });

  it('hands a write that makes no progress to process.stdout instead of looping', () => {
    const fake = fakeDeps({ writeSync: () => 0 });
    createStdout(fake.deps).write('text');
    expect(fake.streamed.map((d) => Buffer.from(d).toString())).toEqual(['text']);
  });

  it('uses process.stdout for a terminal (and asks it whether it is one), and on other systems', () => {
    const tty = fakeDeps({ direct: () => false, tty: true });
    const out = createStdout(tty.deps);
    out.write('x');
    expect(out.isTTY).toBe(true);
    expect(tty.direct).toEqual([]);
    expect(tty.streamed).toEqual(['x']);

    const mac = fakeDeps({ platform: 'darwin' });
    createStdout(mac.deps).write('y');
    expect(mac.direct).toEqual([]);
    expect(mac.streamed).toEqual(['y']);

    const closed = fakeDeps({ direct: () => undefined });
    createStdout(closed.deps).write('z');
    expect(closed.streamed).toEqual(['z']);
  });
});
