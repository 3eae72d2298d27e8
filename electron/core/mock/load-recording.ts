/**
 * Where `missive mock serve` gets its recording: a context in the journal (`--from-context`, read as `context export`
 * reads it), a `context export` file (`--from-export`), or `history show --json` output (`--from-history`). Every
 * source goes through from-export.ts, so the three give the same exchanges for the same conversation; a history file
 * whose requests this profile's journal no longer holds is read from the file alone (from-history.ts). The card is
 * the agent's cached card for a context, the file's `card` when it has one, else null. The whole recording is
 * redacted once more on the way out.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AgentCard } from '@a2a-js/sdk';
import { dataError, isMissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import type { JsonObject } from '../a2a/operations.js';
import { parseCard } from '../a2a/card.js';
import { exportContext } from '../contexts/service.js';
import { redactValue } from '../security/redact.js';
import { parseBoundedJson } from '../security/json-depth.js';
import { contextExport, type ContextExport } from './export-document.js';
import { recordingFromExport } from './from-export.js';
import { exchangeFromShow, parseHistoryFile } from './from-history.js';
import type { RecordedExchange, Recording, RecordingSource } from './recording.js';

/** A recording file larger than this is refused before it is read. */
export const MAX_RECORDING_FILE_BYTES = 256 * 1024 * 1024;

export interface LoadOptions {
  /** The agent whose exchanges to replay when the conversation talked to several (default: the first request's). */
  agent?: string;
}

export async function loadRecording(core: Core, source: RecordingSource, cwd: string, options: LoadOptions = {}): Promise<Recording> {
  if ('context' in source) {
    const { document } = await exportContext(core, source.context, { cwd });
    const recording = recordingFromExport(contextExport.parse(document), `context ${source.context}`, options);
    return redactValue({ ...recording, card: await cachedCard(core, recording.agent) });
  }
  if ('export' in source) {
    const value = readJsonFile(cwd, source.export, 'not_a_context_export', EXPORT_EXPECTED);
    const recording = recordingFromExport(exportDocument(value, source.export), `export ${source.export}`, options);
    return redactValue({ ...recording, card: cardOfFile(value) });
  }
  return redactValue(await fromHistory(core, source.history, cwd, options));
}

const EXPORT_EXPECTED =
  'expected a `missive context export` document ("schema": "missive.context_export.v1"), as `missive context export <id> --output FILE` writes it';

function readJsonFile(cwd: string, file: string, reason: string, expected: string, parse = true): unknown {
  const path = resolve(cwd, file);
  let text: string;
  try {
    if (statSync(path).size > MAX_RECORDING_FILE_BYTES)
      throw dataError('recording_too_large', `${file} is larger than ${MAX_RECORDING_FILE_BYTES / 1024 / 1024} MiB: too large to replay`);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (isMissiveError(error)) throw error;
    throw usageError('recording_unreadable', `cannot read ${file}: ${(error as Error).message}`, 'Give the path of a file that exists.');
  }
  if (!parse) return text;
  return parseBoundedJson(text, file, (error) => {
    throw dataError(reason, `${file} is not JSON (${error.message}): ${expected}`);
  });
}

/** The export document in a file: as written by `--output`, or the `--json` envelope holding it. */
function exportDocument(value: unknown, file: string): ContextExport {
  const inner = (value as { data?: { schema?: unknown } } | null)?.data;
  const read = contextExport.safeParse(inner && typeof inner === 'object' && 'schema' in inner ? inner : value);
  if (read.success) return read.data;
  const issue = read.error.issues[0]!;
  throw dataError('not_a_context_export', `${file} is not a context export: ${EXPORT_EXPECTED}; at ${issue.path.join('.') || 'the top'}: ${issue.message}`);
}

/** A card a file carries (a recording written with one), else null. */
function cardOfFile(value: unknown): JsonObject | null {
  const card = (value as { card?: unknown } | null)?.card;
  return card && typeof card === 'object' && !Array.isArray(card) ? (card as JsonObject) : null;
}

/** The agent's cached card as A2A 1.0 JSON (a 0.3 card is read as missive reads it), or null. */
async function cachedCard(core: Core, alias: string): Promise<JsonObject | null> {
  const agent = await (await core.storage()).agents.get(alias);
  if (!agent?.card) return null;
  try {
    return AgentCard.toJSON(parseCard(agent.card.json, `the cached card of "${alias}"`).typed) as JsonObject;
  } catch {
    return null;
  }
}

async function fromHistory(core: Core, file: string, cwd: string, options: LoadOptions): Promise<Recording> {
  const shows = parseHistoryFile(readJsonFile(cwd, file, 'not_a_history_file', '', false) as string, file);
  const agent = options.agent ?? shows.find((s) => s.entry.agent_alias)?.entry.agent_alias;
  const mine = shows.filter((s) => s.entry.agent_alias === agent);
  if (!agent || !mine.length)
    throw usageError(
      'empty_recording',
      `${file} holds no request to ${agent ? `agent "${agent}"` : 'an agent'}`,
      'Pick an agent its entries name with --agent.',
    );
  // The journal's own record of each request, when this profile still holds its context.
  const journaled = new Map<string, Omit<RecordedExchange, 'index'>>();
  for (const contextId of new Set(mine.map((s) => s.entry.context_id).filter((c): c is string => c !== null))) {
    const document = await exportContext(core, contextId, { cwd }).then(
      (r) => r.document,
      () => null,
    );
    if (!document) continue;
    const recording = (() => {
      try {
        return recordingFromExport(contextExport.parse(document), `context ${contextId}`, { agent });
      } catch {
        return null;
      }
    })();
    for (const { index: _index, ...exchange } of recording?.exchanges ?? []) journaled.set(String(exchange.request.messageId), exchange);
  }
  const exchanges: RecordedExchange[] = [];
  mine.forEach((show, i) => {
    const continued = mine.slice(i + 1).some((later) => show.entry.task_id && later.request?.taskId === show.entry.task_id);
    const exchange = journaled.get(show.entry.message_id) ?? exchangeFromShow(show, continued);
    if (exchange) exchanges.push({ index: exchanges.length, ...exchange });
  });
  if (!exchanges.length) throw usageError('empty_recording', `${file} holds no send or stream an agent answered: there is nothing to replay`);
  const card = journaled.size ? await cachedCard(core, agent) : null;
  return { source: `history ${file}`, agent, card, exchanges };
}
