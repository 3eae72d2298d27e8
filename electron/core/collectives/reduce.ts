/**
 * reduce: one result from the members' outputs in a context. Local strategies are deterministic; `--reducer-agent`
 * sends the prompt through the normal send path; `--command` pipes it to a local command. The result is recorded as
 * one `local` message row with per-member provenance.
 */
import { randomUUID } from 'node:crypto';
import { MissiveError, toMissiveError, usageError } from '../../../shared/errors.js';
import type { Core } from '../handle.js';
import { call, journal } from '../store/steps.js';
import { responseText, sendMessage } from '../messaging/send.js';
import { requireAgent } from '../agents/registry.js';
import { requireGroup } from './groups.js';
import { contextIdOf } from '../contexts/service.js';
import { memberOutput, type MemberOutput } from './member-output.js';
import { defaultPrompt, localReduction, renderTemplate, STRATEGIES, type ReduceContext, type Strategy } from './reduce-strategies.js';
import { runReducerCommand } from './reduce-command.js';

export interface ReduceInput {
  group: string;
  contextId: string;
  strategy?: string;
  template?: string;
  reducerAgent?: string;
  command?: string;
  acceptedOutputModes?: string[];
  metadata?: string[];
  cwd: string;
}

export interface Provenance {
  agent: string;
  rank: number;
  status: MemberOutput['status'];
  task_id: string | null;
  state: string | null;
  text: string | null;
  source_message_id: string | null;
  artifacts: Array<{ artifact_id: string; version: number }>;
}

export interface ReduceResult {
  operation_id: string;
  group: string;
  context_id: string;
  strategy: Strategy;
  counts: { members: number; inputs: number; missing_task: number; empty_output: number };
  reducer: { method: 'local' | 'agent' | 'command'; agent: string | null; prompt_bytes: number; template_applied: boolean; task_id: string | null };
  reduced_text: string;
  provenance: Provenance[];
  persistence: { reduced_message_id: string };
}

function parseStrategy(s: string | undefined): Strategy {
  const value = (s ?? 'summarise').toLowerCase().replace(/^summarize$/, 'summarise');
  if (!(STRATEGIES as readonly string[]).includes(value))
    throw usageError('invalid_strategy', `unknown reduce strategy "${s}"`, `Use one of: ${STRATEGIES.join(', ')}.`);
  return value as Strategy;
}

/** The checks of a reduce's flags that need no journal (also made by `job start reduce`); returns the strategy. */
export async function checkReduceInput(core: Core, input: Pick<ReduceInput, 'strategy' | 'template' | 'reducerAgent' | 'command'>): Promise<Strategy> {
  const strategy = parseStrategy(input.strategy);
  if (strategy === 'custom' && !input.template) throw usageError('template_required', '--strategy custom needs --template');
  if (input.reducerAgent && input.command) throw usageError('conflicting_reducers', 'use --reducer-agent or --command, not both');
  if (input.template !== undefined && !input.template.trim()) throw usageError('empty_template', '--template is empty');
  if (input.reducerAgent) await requireAgent(core, input.reducerAgent);
  return strategy;
}

export async function reduce(core: Core, input: ReduceInput): Promise<ReduceResult> {
  const strategy = await checkReduceInput(core, input);
  const group = await requireGroup(core, input.group);
  const contextId = await contextIdOf(core, input.contextId);
  input = { ...input, contextId };
  const outputs: MemberOutput[] = [];
  for (const m of group.members) {
    const { stored_artifacts: _, ...output } = await (await core.storage()).read(memberOutput({ alias: m.agent_alias, rank: m.rank }, contextId));
    outputs.push(output);
  }
  const gathered = outputs.filter((o) => o.status === 'gathered');
  if (gathered.length === 0) {
    throw usageError(
      'no_outputs',
      `no member of "${group.group_name}" has output in context ${input.contextId}`,
      `Run \`missive bcast ${group.group_name} ... --context ${input.contextId}\` first, or check the context id.`,
    );
  }

  const operationId = randomUUID();
  const ctx: ReduceContext = { group: group.group_name, contextId: input.contextId, inputs: gathered };
  const defaultReduction = localReduction(strategy === 'custom' ? 'summarise' : strategy, ctx);
  const rendered = input.template ? renderTemplate(input.template, { ...ctx, strategy, defaultReduction }) : null;
  if (rendered !== null && !rendered.trim()) throw usageError('empty_template', 'the template rendered to nothing');
  await (
    await core.storage()
  ).write(function* () {
    yield* call('ensureContext', contextId, null);
    yield* journal({
      type: 'missive.reduce.started',
      contextId,
      payload: { operation_id: operationId, group: group.group_name, strategy, reducer: input.reducerAgent ? 'agent' : input.command ? 'command' : 'local' },
    });
  });
  const storage = await core.storage();
  for (const o of outputs)
    await storage.journal.append({
      type: `missive.reduce.input.${o.status}`,
      agentAlias: o.alias,
      contextId,
      taskId: o.task_id,
      payload: { operation_id: operationId, rank: o.rank, text_source: o.text_source },
    });

  const prompt = rendered ?? defaultPrompt({ ...ctx, strategy, defaultReduction });
  let method: ReduceResult['reducer']['method'] = 'local';
  let reducedText: string;
  let reducerTask: string | null = null;
  try {
    if (input.reducerAgent) {
      method = 'agent';
      const sent = await sendMessage(core, {
        agent: input.reducerAgent,
        text: prompt,
        contextId: input.contextId,
        acceptedOutputModes: input.acceptedOutputModes?.length ? input.acceptedOutputModes : ['text/plain'],
        metadata: [
          ...(input.metadata ?? []),
          'missive.collective=reduce',
          `missive.reduce.operation_id=${operationId}`,
          `missive.reduce.strategy=${strategy}`,
          `missive.group=${group.group_name}`,
        ],
        cwd: input.cwd,
      });
      reducerTask = sent.task?.task_id ?? null;
      reducedText = responseText(sent.response)?.trim() || (sent.task ? `task ${sent.task.task_id} is ${sent.task.state}` : '');
      if (!reducedText) throw new MissiveError('orchestration', 'reducer_output_empty', `reducer agent "${input.reducerAgent}" answered without text`);
    } else if (input.command) {
      method = 'command';
      reducedText = await runReducerCommand(input.command, prompt, { timeoutMs: core.timeoutMs, cwd: input.cwd, env: core.env });
    } else {
      reducedText = rendered ?? defaultReduction;
    }
  } catch (error) {
    const err = toMissiveError(error);
    await storage.journal.append({ type: 'missive.reduce.failed', contextId: input.contextId, payload: { operation_id: operationId, error: err.toReport() } });
    throw err;
  }

  const provenance: Provenance[] = outputs.map((o) => ({
    agent: o.alias,
    rank: o.rank,
    status: o.status,
    task_id: o.task_id,
    state: o.state,
    text: o.text,
    source_message_id: o.source_message_id,
    artifacts: o.artifacts.map((a) => ({ artifact_id: a.artifact_id, version: a.version })),
  }));
  const reducedMessageId = randomUUID();
  await (
    await core.storage()
  ).write(function* () {
    yield* call('insertMessage', {
      messageId: reducedMessageId,
      agentAlias: input.reducerAgent ?? null,
      contextId: input.contextId,
      taskId: null,
      direction: 'local',
      role: 'system',
      protocolMessageId: null,
      content: { parts: [{ text: reducedText }] },
      metadata: { 'missive.collective': 'reduce', operation_id: operationId, strategy, group: group.group_name, reducer: method, provenance },
    });
    yield* journal({
      type: 'missive.reduce.completed',
      contextId: input.contextId,
      payload: { operation_id: operationId, strategy, reducer: method, inputs: gathered.length, reduced_message_id: reducedMessageId },
    });
  });
  return {
    operation_id: operationId,
    group: group.group_name,
    context_id: input.contextId,
    strategy,
    counts: {
      members: outputs.length,
      inputs: gathered.length,
      missing_task: outputs.filter((o) => o.status === 'missing_task').length,
      empty_output: outputs.filter((o) => o.status === 'empty_output').length,
    },
    reducer: { method, agent: input.reducerAgent ?? null, prompt_bytes: Buffer.byteLength(prompt), template_applied: rendered !== null, task_id: reducerTask },
    reduced_text: reducedText,
    provenance,
    persistence: { reduced_message_id: reducedMessageId },
  };
}
