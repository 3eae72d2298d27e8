/**
 * `missive job start send|stream|bcast --from-file FILE|-`: many jobs from one file, queued by one process. Each
 * non-blank line is one job: a JSON object (`{"agent": "echo", "text": "…"}`, NDJSON) or, when it does not start
 * with `{`, the message text itself. Every line is checked first (its JSON, its agent or group, its message as the
 * job would capture it, the credentials it must not hold); one bad line refuses the whole file, naming each bad line
 * by number (`validation::invalid_job_file`), and nothing is queued. The jobs are then recorded in batches, each
 * batch one transaction (queue.ts recordJobs).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { MissiveError, toMissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { requireAgent } from '../agents/registry.js';
import { requireGroup } from '../collectives/groups.js';
import type { Execution, FailurePolicy } from '../collectives/fan-out.js';
import type { MessageInputs } from '../collectives/bcast.js';
import { contextIdOf } from '../contexts/service.js';
import type { SendInput } from '../messaging/send.js';
import { credentialsCheck } from './credentials.js';
import { recordJobs, type PlannedJob, type StartJobOptions } from './queue.js';
import { storedRequest, summarise, type JobInput } from './requests.js';

export type FileJobKind = 'send' | 'stream' | 'bcast';

/** The settings every job of the file shares: the command line's, besides the message the file gives. */
export interface JobFileDefaults {
  kind: FileJobKind;
  /** The agent (send, stream) or group (bcast) of a line that names none. */
  target?: string;
  /** Message settings (metadata, context, binding…), as the command line gave them. */
  input: Omit<SendInput, 'agent' | 'text' | 'stdin' | 'parts' | 'files' | 'fileUrls' | 'fileBytes' | 'jsonParts'>;
  force?: boolean;
  fanOut?: { execution?: Execution; maxConcurrency?: number; failurePolicy?: FailurePolicy };
}

export interface StartedFromFile {
  count: number;
  job_ids: string[];
}

/** Bad lines listed in the error's message, at most. */
const SHOWN_ERRORS = 20;

/** One line as an object: the message (`text`, or `message`), and optionally its own target and context. */
const lineSchema = z
  .strictObject({
    agent: z.string().min(1).max(256).optional(),
    group: z.string().min(1).max(256).optional(),
    text: z.string().optional(),
    message: z.string().optional(),
    context_id: z.string().min(1).max(256).optional(),
  })
  .refine((o) => (o.text === undefined) !== (o.message === undefined), 'give the message as "text" or as "message" (one of them)');

interface FileLine {
  line: number;
  target?: string;
  text: string;
  contextId?: string;
}

/** The file's lines as jobs, and what is wrong with the others (by line number, from 1). */
export function parseJobLines(text: string, kind: FileJobKind): { lines: FileLine[]; errors: Array<{ line: number; message: string }> } {
  const lines: FileLine[] = [];
  const errors: Array<{ line: number; message: string }> = [];
  const targetKey = kind === 'bcast' ? 'group' : 'agent';
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    if (!raw.trimStart().startsWith('{')) return void lines.push({ line, text: raw });
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      return void errors.push({ line, message: `not JSON (${(error as Error).message})` });
    }
    const parsed = lineSchema.safeParse(value);
    if (!parsed.success) return void errors.push({ line, message: parsed.error.issues.map((issue) => issueText(issue)).join('; ') });
    const o = parsed.data;
    const other = kind === 'bcast' ? o.agent : o.group;
    if (other !== undefined)
      return void errors.push({ line, message: `"${kind === 'bcast' ? 'agent' : 'group'}" does not go with a ${kind} job: name the ${targetKey}` });
    lines.push({ line, text: (o.text ?? o.message)!, target: kind === 'bcast' ? o.group : o.agent, ...(o.context_id ? { contextId: o.context_id } : {}) });
  });
  return { lines, errors };
}

const issueText = (issue: { path: readonly PropertyKey[]; message: string }) =>
  issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;

/** Checks every line of `text`, then queues one job per line; refuses the whole file when any line is bad. */
export async function startJobsFromFile(
  core: Core,
  text: string,
  source: string,
  defaults: JobFileDefaults,
  options: StartJobOptions = {},
): Promise<StartedFromFile> {
  const { kind } = defaults;
  const { lines, errors } = parseJobLines(text, kind);
  const bad = (line: number, error: unknown) => errors.push({ line, message: toMissiveError(error).message });

  // Each target and context once, however many lines name it.
  const targets = new Map<string, Promise<string>>();
  const targetOf = (name: string) => {
    let known = targets.get(name);
    if (!known) {
      known = kind === 'bcast' ? requireGroup(core, name).then((g) => g.group_name) : requireAgent(core, name).then((a) => a.alias);
      known.catch(() => undefined);
      targets.set(name, known);
    }
    return known;
  };
  const contexts = new Map<string, Promise<string>>();
  const contextOf = (id: string) => {
    let known = contexts.get(id);
    if (!known) {
      known = contextIdOf(core, id);
      known.catch(() => undefined);
      contexts.set(id, known);
    }
    return known;
  };

  // A bcast's context is the job's own (the request's), not its message's.
  const { contextId: _context, ...shared } = defaults.input;
  const planned: Array<PlannedJob & { line: number }> = [];
  for (const l of lines) {
    const name = l.target ?? defaults.target;
    if (!name) {
      bad(l.line, usageError('no_target', `no ${kind === 'bcast' ? 'group' : 'agent'}: the line names none and the command gives none`));
      continue;
    }
    try {
      const target = await targetOf(name);
      const given = l.contextId ?? defaults.input.contextId;
      const contextId = given ? await contextOf(given) : undefined;
      const input: JobInput =
        kind === 'bcast'
          ? {
              kind: 'bcast',
              group: target,
              ...(contextId ? { contextId } : {}),
              inputs: { ...shared, text: l.text } satisfies MessageInputs,
              ...defaults.fanOut,
            }
          : {
              kind,
              input: { ...defaults.input, agent: target, text: l.text, contextId, messageId: randomUUID() },
              ...(kind === 'stream' && defaults.force ? { force: true } : {}),
            };
      const request = storedRequest(core, input);
      planned.push({ line: l.line, request, summary: await summarise(core, request) });
    } catch (error) {
      bad(l.line, error);
    }
  }
  const check = await credentialsCheck(core);
  for (const p of planned) {
    try {
      await check(p.request);
    } catch (error) {
      bad(p.line, error);
    }
  }
  if (errors.length > 0) throw fileError(source, errors);
  if (planned.length === 0)
    throw usageError('empty_job_file', `${source} holds no job: each non-blank line is one`, 'Give one message per line, or one JSON object per line.');
  const ids = await recordJobs(core, planned, options);
  return { count: ids.length, job_ids: ids };
}

function fileError(source: string, errors: Array<{ line: number; message: string }>): MissiveError {
  errors.sort((a, b) => a.line - b.line);
  const shown = errors.slice(0, SHOWN_ERRORS).map((e) => `line ${e.line}: ${e.message}`);
  const more = errors.length > SHOWN_ERRORS ? [`… and ${errors.length - SHOWN_ERRORS} more`] : [];
  return usageError(
    'invalid_job_file',
    `${errors.length} line(s) of ${source} are not jobs; nothing was queued: ${[...shown, ...more].join('; ')}`,
    'Fix those lines and run it again: each non-blank line is a message, or a JSON object {"agent": …, "text": …}.',
  );
}
