/**
 * `--show-wire` (also `-vv`) for `missive send` and `missive stream`: every HTTP exchange (or gRPC call) the command
 * makes. Human mode prints each step on stderr as it happens, curl -v style (`> POST url`, `> header: value`, the body;
 * `< HTTP 200`, headers, body; `< [+12 ms] event: data` per SSE frame); all outside text goes through terminal-text.ts.
 * `--json` / `--ndjson` print nothing extra: the exchanges go into the result's `data.wire` (and, on a failure, into
 * the error envelope's data), so stdout stays one envelope. Everything shown was redacted by the capture (a2a/wire.ts).
 */
import type { Command } from 'commander';
import { toMissiveError, type MissiveError } from '../../shared/errors.js';
import type { WireExchange } from '../../shared/ipc/contract.js';
import { createWireCapture, type WireCapture, type WireFrame, type WirePhase } from '../core/a2a/wire.js';
import type { CommandContext } from './command-context.js';
import { terminalBlock, terminalLine } from './terminal-text.js';

export function addShowWireOption(cmd: Command): Command {
  return cmd
    .option(
      '--show-wire',
      'show every HTTP exchange on stderr (request, answer, SSE frames with arrival times), credentials redacted; with --json/--ndjson in data.wire instead (also -vv)',
    )
    .addHelpText(
      'after',
      `\nThe wire (credentials redacted):\n  $ missive ${cmd.name()} <agent> hello --show-wire          each exchange on stderr as it happens\n  $ missive ${cmd.name()} <agent> hello --show-wire --json   the exchanges in data.wire`,
    );
}

export interface WireView {
  /** The capture to hand to the service, or undefined when the wire is not asked for. */
  capture: WireCapture | undefined;
  /** The result as printed: with `wire` in machine modes. */
  attach<T extends object>(result: T): T | (T & { wire: WireExchange[] });
  /** The error as printed: in machine modes its report carries `wire`. */
  failed(error: unknown): unknown;
}

const headerLines = (mark: '>' | '<', headers: Record<string, string>) =>
  Object.entries(headers).map(([name, value]) => `${mark} ${terminalLine(name)}: ${terminalLine(value)}`);

const bodyLines = (body: string | null | undefined, truncated?: boolean) =>
  body ? [terminalBlock(body), ...(truncated ? ['* (body cut at 256 KiB)'] : [])] : [];

/** `HTTP 200`, or `gRPC status 0 (OK)`. */
const statusText = (e: Readonly<WireExchange>) =>
  e.request.protocol === 'grpc' ? `gRPC status ${e.response?.status}${e.response?.status === 0 ? ' (OK)' : ''}` : `HTTP ${e.response?.status}`;

/** The lines one step of an exchange adds, curl -v style. */
function stepLines(e: Readonly<WireExchange>, phase: WirePhase): string[] {
  const grpc = e.request.protocol === 'grpc';
  if (phase === 'request') {
    return [
      `* ${terminalLine(e.operation)} over ${grpc ? 'gRPC' : 'HTTP'}`,
      `> ${grpc ? 'GRPC' : terminalLine(e.request.method)} ${grpc ? `${terminalLine(e.request.method)} ${terminalLine(e.request.url)}` : terminalLine(e.request.url)}`,
      ...headerLines('>', e.request.headers),
      '>',
      ...bodyLines(e.request.body, e.request.truncated),
    ];
  }
  if (phase === 'response') {
    if (!e.response) return [];
    return [`< ${statusText(e)}`, ...headerLines('<', e.response.headers), '<'];
  }
  if (phase === 'body') return bodyLines(e.response?.body, e.response?.truncated);
  const took = e.duration_ms === null ? '' : ` in ${e.duration_ms} ms`;
  const frames = e.frames ? `, ${e.frames.length} frame(s)${e.frames_dropped ? ` (+${e.frames_dropped} not kept)` : ''}` : '';
  if (e.error) return [`* ${terminalLine(e.operation)} failed${took}: ${terminalLine(e.error.message)} (${terminalLine(e.error.code)})`];
  return [`* ${terminalLine(e.operation)} done${e.response ? `: ${statusText(e)}` : ''}${frames}${took}`];
}

const frameLine = (frame: Readonly<WireFrame>) => `< [+${frame.at_ms} ms] ${terminalLine(frame.event ?? 'message')}: ${terminalLine(frame.data)}`;

/** A report that also carries the exchanges (machine modes print `toReport()` in the error envelope). */
function withWire(error: unknown, wire: WireExchange[]): MissiveError {
  const err = toMissiveError(error);
  const report = err.toReport();
  return Object.assign(err, { toReport: () => ({ ...report, wire }) });
}

/** The wire view of one command: on with `--show-wire` or `-vv`. */
export function wireView(ctx: CommandContext, o: { showWire?: boolean }): WireView {
  const wanted = o.showWire === true || ctx.flags.verbose >= 2;
  const mode = ctx.out.mode;
  if (!wanted || mode === 'quiet') return { capture: undefined, attach: (result) => result, failed: (error) => error };
  if (mode === 'human') {
    const print = (lines: string[]) => lines.length && ctx.deps.io.stderr(`${lines.join('\n')}\n`);
    const capture = createWireCapture({ onExchange: (e, phase) => print(stepLines(e, phase)), onFrame: (_e, frame) => print([frameLine(frame)]) });
    return { capture, attach: (result) => result, failed: (error) => error };
  }
  const capture = createWireCapture();
  return {
    capture,
    attach: (result) => ({ ...result, wire: capture.exchanges() }),
    failed: (error) => {
      const wire = capture.exchanges();
      return wire.length ? withWire(error, wire) : error;
    },
  };
}
