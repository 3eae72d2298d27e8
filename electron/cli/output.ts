/**
 * The output contract: one `missive.output.v1` envelope per result, NDJSON with a sequence, redacted always. Human
 * text is made terminal-safe here (terminal-text.ts): every line, table, warning and error; JSON is left exact.
 */
import { usageError, type MissiveError } from '../../shared/errors.js';
import { redactShared, redactText, redactValue } from '../core/security/redact.js';
import { terminalBlock, terminalLine } from './terminal-text.js';

export const OUTPUT_SCHEMA_VERSION = 'missive.output.v1';
export type OutputMode = 'human' | 'json' | 'ndjson' | 'quiet';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
}

export interface ModeFlags {
  json?: boolean;
  ndjson?: boolean;
  quiet?: boolean;
}

/** `--quiet` wins; `--json` with `--ndjson` is a usage error; then the flag; then config `output.format`. */
export function resolveMode(flags: ModeFlags, configured?: OutputMode): OutputMode {
  if (flags.quiet) return 'quiet';
  if (flags.json && flags.ndjson) throw usageError('conflicting_output', '--json and --ndjson cannot be used together', 'Pick one machine format.');
  if (flags.json) return 'json';
  if (flags.ndjson) return 'ndjson';
  return configured ?? 'human';
}

export class Printer {
  #sequence = 0;
  constructor(
    readonly mode: OutputMode,
    private readonly io: Io,
    private readonly secrets: () => readonly string[] = () => [],
  ) {}

  /** The envelope of `data`, only to be serialised: redacted without copying what holds no secret (redactShared). */
  envelope(kind: string, data: unknown, ok = true) {
    return { schema_version: OUTPUT_SCHEMA_VERSION, ok, kind, data: redactShared(data, this.secrets()) };
  }

  /** One result: pretty JSON, one NDJSON line, or the human rendering. */
  result<T>(kind: string, data: T, human: (data: T) => string): void {
    if (this.mode === 'quiet') return;
    if (this.mode === 'json') return this.io.stdout(`${JSON.stringify(this.envelope(kind, data), null, 2)}\n`);
    if (this.mode === 'ndjson') return this.io.stdout(`${JSON.stringify({ ...this.envelope(kind, data), sequence: this.#sequence++ })}\n`);
    const text = terminalBlock(human(redactValue(data, this.secrets())));
    if (text) this.io.stdout(text.endsWith('\n') ? text : `${text}\n`);
  }

  /**
   * A result with an outcome code (task wait, collectives): the summary always goes to stdout, and for a non-zero
   * code the matching error envelope to stderr. Returns the exit code.
   */
  outcome<T extends { exit_code: number }>(kind: string, data: T, human: (data: T) => string, errorOf: (data: T) => MissiveError): number {
    this.result(kind, data, human);
    if (data.exit_code !== 0) this.error(errorOf(data));
    return data.exit_code;
  }

  /** One progress event of a longer command: an NDJSON line or a human line; nothing in `--json` (one final document). */
  event<T>(kind: string, data: T, human: (data: T) => string): void {
    if (this.mode === 'quiet' || this.mode === 'json') return;
    if (this.mode === 'ndjson') return this.io.stdout(`${JSON.stringify({ ...this.envelope(kind, data), sequence: this.#sequence++ })}\n`);
    const text = terminalBlock(human(redactValue(data, this.secrets())));
    if (text) this.io.stdout(`${text}\n`);
  }

  /** A warning on stderr (nothing under --quiet): a line of text, or a compact `warning` envelope in machine modes. */
  warning(message: string): void {
    if (this.mode === 'quiet') return;
    const text = redactText(message, this.secrets());
    if (this.mode === 'json' || this.mode === 'ndjson') return this.io.stderr(`${JSON.stringify(this.envelope('warning', { message: text }))}\n`);
    this.io.stderr(`missive: warning: ${terminalLine(text)}\n`);
  }

  /** Errors go to stderr in every mode: an envelope in machine modes, a message with help otherwise. */
  error(error: MissiveError): void {
    const report = error.toReport();
    if (this.mode === 'json' || this.mode === 'ndjson') {
      const env = { ...this.envelope('error', report, false) };
      this.io.stderr(`${this.mode === 'json' ? JSON.stringify(env, null, 2) : JSON.stringify({ ...env, sequence: this.#sequence++ })}\n`);
      return;
    }
    const secrets = this.secrets();
    let text = `missive: ${terminalLine(redactText(report.message, secrets))}`;
    if (report.help) text += `\n  help: ${terminalLine(redactText(report.help, secrets))}`;
    this.io.stderr(`${text}\n`);
  }
}
