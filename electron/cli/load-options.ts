/**
 * `missive load` flags → a LoadPlan. Open-loop when --rate is given (a fixed arrival rate), else closed-loop with
 * --concurrency virtual users (1 when neither is given); the run lasts --duration or sends --requests, exactly one.
 */
import { usageError } from '../../shared/errors.js';
import { parseDuration } from '../core/config/duration.js';
import type { Binding } from '../core/config/schema.js';
import { readLoadInputs } from '../core/load/inputs.js';
import { DEFAULT_MAX_REQUESTS } from '../core/load/safety.js';
import type { LoadInput, LoadModel, LoadPlan } from '../core/load/types.js';

export interface LoadFlags {
  rate?: string;
  duration?: string;
  requests?: number;
  concurrency?: number;
  stream?: boolean;
  binding?: Binding;
  warmup?: string;
  fromFile?: string;
  until?: string;
  record?: boolean;
  maxRequests?: number;
}

const RATE_HELP = 'Write the rate as requests per second or per minute: --rate 200/s, --rate 200 (per second) or --rate 30/m.';

/** `200/s`, `200` (per second), `30/m`, `0.5/s` → requests per second. */
export function parseRate(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(?:\/(s|m))?$/.exec(text.trim());
  if (!match) throw usageError('invalid_rate', `--rate "${text}" is not a rate`, RATE_HELP);
  const perSecond = Number(match[1]) / (match[2] === 'm' ? 60 : 1);
  if (!(perSecond > 0)) throw usageError('invalid_rate', '--rate must be greater than zero', RATE_HELP);
  return perSecond;
}

function modelOf(o: LoadFlags): LoadModel {
  if (o.rate !== undefined) {
    if (o.concurrency !== undefined)
      throw usageError(
        'conflicting_load_model',
        '--rate and --concurrency pick two different models',
        'Use --rate R/s for open-loop (a fixed arrival rate), or --concurrency C for closed-loop (C virtual users), not both.',
      );
    return { kind: 'open', rate: parseRate(o.rate) };
  }
  return { kind: 'closed', concurrency: o.concurrency ?? 1 };
}

function inputsOf(message: string | undefined, o: LoadFlags, cwd: string): LoadInput[] {
  if (message !== undefined && o.fromFile !== undefined)
    throw usageError(
      'conflicting_load_inputs',
      'give a MESSAGE or --from-file, not both',
      'A run sends the MESSAGE every time, or cycles through the lines of --from-file.',
    );
  if (o.fromFile !== undefined) return readLoadInputs(o.fromFile, cwd);
  if (message === undefined || message === '')
    throw usageError(
      'missing_load_message',
      'nothing to send',
      'Give the message to send: missive load AGENT "hello" --rate 10/s --duration 10s, or --from-file inputs.jsonl.',
    );
  return [{ text: message }];
}

/** The plan the flags describe, or a usage error (exit 64) saying what to write instead. */
export function loadPlanOf(target: string, message: string | undefined, o: LoadFlags, cwd: string): LoadPlan {
  if ((o.duration === undefined) === (o.requests === undefined))
    throw usageError(
      o.duration === undefined ? 'missing_load_length' : 'conflicting_load_length',
      o.duration === undefined ? 'say how long the run lasts' : '--duration and --requests cannot be used together',
      'Give exactly one of --duration D (e.g. --duration 30s) or --requests N (e.g. --requests 500).',
    );
  if (o.until !== undefined && o.until !== 'final') throw usageError('invalid_until', `--until "${o.until}" is not known`, 'The only value is --until final.');
  const model = modelOf(o);
  return {
    target,
    model,
    ...(o.duration !== undefined ? { durationMs: parseDuration(o.duration, '--duration') } : { requests: o.requests! }),
    warmupMs: o.warmup === undefined ? 0 : parseDuration(o.warmup, '--warmup'),
    stream: o.stream === true,
    ...(o.binding ? { binding: o.binding } : {}),
    untilFinal: o.until === 'final',
    inputs: inputsOf(message, o, cwd),
    record: o.record === true,
    maxRequests: o.maxRequests ?? DEFAULT_MAX_REQUESTS,
  };
}
