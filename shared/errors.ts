/**
 * Error categories, stable codes and process exit codes shared by the core, the CLI and the IPC bridge.
 * Isomorphic: no node:*, no DOM, no electron.
 */

/** Error category → sysexits-style exit code. */
export const CATEGORY_EXIT_CODES = {
  validation: 64,
  data: 65,
  transport: 69,
  internal: 70,
  orchestration: 70,
  io: 74,
  storage: 75,
  protocol: 76,
  auth: 77,
  config: 78,
} as const;

export type ErrorCategory = keyof typeof CATEGORY_EXIT_CODES;

/** Outcome codes used by task waits, barriers and collectives (override the category code). */
export const OUTCOME_EXIT_CODES = {
  task_failed: 80,
  cancelled: 81,
  timeout: 82,
  input_required: 83,
  rejected: 84,
  auth_required: 85,
} as const;

/** The machine-readable shape of every error, in CLI envelopes and IPC replies alike. */
export interface ErrorReport {
  code: string;
  category: ErrorCategory;
  message: string;
  help?: string;
  exit_code: number;
}

/**
 * What the window offers beside an error, in place of a CLI command: a button the renderer draws for the action's
 * `kind` (components/ErrorAction.tsx), with the names it acts on.
 */
export type GuiAction = { kind: 'set-secret'; auth_ref: string } | { kind: 'log-in'; target: string };

/** The help of an error as the window gives it: GUI actions, where `help` names CLI commands. */
export interface GuiHelp {
  help: string;
  action?: GuiAction;
}

export interface MissiveErrorOptions {
  help?: string;
  /** The window's help, when `help` names a CLI command (the CLI never prints it). */
  gui?: GuiHelp;
  exitCode?: number;
  cause?: unknown;
}

/**
 * The one error type of missive. `code` is stable (`missive::<category>::<reason>`), and documented in docs/cli.md.
 */
export class MissiveError extends Error {
  readonly category: ErrorCategory;
  readonly code: string;
  readonly help?: string;
  readonly gui?: GuiHelp;
  readonly exitCode: number;
  /** The HTTP status of the answer that caused it, when an agent answered one (set where the answer is read: withHttpStatus). */
  httpStatus?: number;

  constructor(category: ErrorCategory, reason: string, message: string, options: MissiveErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MissiveError';
    this.category = category;
    this.code = `missive::${category}::${reason}`;
    this.help = options.help;
    this.gui = options.gui;
    this.exitCode = options.exitCode ?? CATEGORY_EXIT_CODES[category];
  }

  toReport(): ErrorReport {
    const report: ErrorReport = {
      code: this.code,
      category: this.category,
      message: `${this.category} error: ${this.message}`,
      exit_code: this.exitCode,
    };
    if (this.help) report.help = this.help;
    return report;
  }
}

/** The report the window gets: the CLI's, with the GUI's help and action when the error has them. */
export function guiReport(error: MissiveError): ErrorReport & { gui_help?: string; gui_action?: GuiAction } {
  const report = error.toReport();
  if (!error.gui) return report;
  return { ...report, gui_help: error.gui.help, ...(error.gui.action ? { gui_action: error.gui.action } : {}) };
}

export const isMissiveError = (value: unknown): value is MissiveError => value instanceof MissiveError;

/** `error`, marked as caused by an answer with HTTP `status` (kept when already marked); any other value as it is. */
export function withHttpStatus<E>(error: E, status: number): E {
  if (error instanceof MissiveError) error.httpStatus ??= status;
  return error;
}

/** The error a report was made of (`toReport`), as a process that only has the report (a job's result) rebuilds it. */
export function errorFromReport(report: ErrorReport): MissiveError {
  const prefix = `${report.category} error: `;
  const message = report.message.startsWith(prefix) ? report.message.slice(prefix.length) : report.message;
  return new MissiveError(report.category, report.code.split('::').at(-1) ?? 'unexpected', message, { help: report.help, exitCode: report.exit_code });
}

/** Wraps anything thrown into a MissiveError; unknown failures are internal (exit 70). */
export function toMissiveError(error: unknown): MissiveError {
  if (isMissiveError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new MissiveError('internal', 'unexpected', message, {
    help: 'This is a bug in missive; run again with -v and report it.',
    cause: error,
  });
}

export const usageError = (reason: string, message: string, help?: string) => new MissiveError('validation', reason, message, { help });
export const configError = (reason: string, message: string, help?: string) => new MissiveError('config', reason, message, { help });
export const transportError = (reason: string, message: string, help?: string) => new MissiveError('transport', reason, message, { help });
export const protocolError = (reason: string, message: string, help?: string) => new MissiveError('protocol', reason, message, { help });
export const authError = (reason: string, message: string, help?: string) => new MissiveError('auth', reason, message, { help });
export const storageError = (reason: string, message: string, help?: string) => new MissiveError('storage', reason, message, { help });
export const dataError = (reason: string, message: string, help?: string) => new MissiveError('data', reason, message, { help });
