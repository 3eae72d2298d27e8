/**
 * `missive load`: load-test an agent, a group or a URL, open-loop (--rate) or closed-loop (--concurrency), with a
 * live view, a final table or report, `--compare` and `--report FILE`. Presentation only: the plan goes to the
 * engine (core/load/run.ts); the safety rules are core/load/safety.ts.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { usageError } from '../../../shared/errors.js';
import { BINDINGS } from '../../core/config/schema.js';
import { isUrlTarget } from '../../core/agents/ad-hoc.js';
import { showAgent } from '../../core/agents/views.js';
import { requireGroup } from '../../core/collectives/groups.js';
import { compareReports, parseLoadReport, type PreviousReport } from '../../core/load/compare.js';
import { runLoad } from '../../core/load/run.js';
import { checkLoadSafety, isYes, plannedRequests } from '../../core/load/safety.js';
import type { LoadPlan, LoadSnapshot } from '../../core/load/types.js';
import { writePrivateFile } from '../../core/security/private-files.js';
import { withoutUserinfo } from '../../core/validation/url.js';
import type { Action, CommandContext } from '../command-context.js';
import { describeModel } from '../../core/load/model-name.js';
import { loadPlanOf, type LoadFlags } from '../load-options.js';
import { loadReportText, type LoadResult } from '../load-text.js';
import { LoadView } from '../load-view.js';
import { integer } from '../options.js';

interface LoadOptions extends LoadFlags {
  yes?: boolean;
  compare?: string;
  report?: string;
}

/** A URL without its credentials or query (which may hold a key). */
const shownUrl = (url: string) => withoutUserinfo(url).replace(/[?#].*$/s, '');

/** Where the requests go, for the confirmation: `billing at http://…`, `group team (3 agents: a, b, c)` or the URL. */
async function whereText(ctx: CommandContext, target: string): Promise<string> {
  if (isUrlTarget(target)) return shownUrl(target);
  const agent = await showAgent(ctx.core, target).catch(() => undefined);
  if (agent) return `${target} at ${shownUrl(agent.base_url)}`;
  const group = await requireGroup(ctx.core, target).catch(() => undefined);
  if (group) return `group ${target} (${group.members.length} agents: ${group.members.map((m) => m.agent_alias).join(', ')})`;
  return target;
}

/** The user's answer to a question: a line typed at the terminal (or the first line of what was piped). */
async function ask(ctx: CommandContext, question: string): Promise<string> {
  ctx.deps.io.stderr(question);
  if (ctx.deps.readLine) return ctx.deps.readLine();
  return ((await ctx.deps.stdin?.()) ?? '').split('\n')[0] ?? '';
}

async function confirmSafety(ctx: CommandContext, plan: LoadPlan, o: LoadOptions): Promise<void> {
  const maxRequests = plan.maxRequests!;
  const planned = plannedRequests(plan);
  const decision = checkLoadSafety({
    planned,
    maxRequests,
    yes: o.yes === true,
    interactive: ctx.deps.io.isTTY && ctx.out.mode === 'human',
    where: await whereText(ctx, plan.target),
  });
  if (decision.kind === 'ask' && !isYes(await ask(ctx, decision.question)))
    throw usageError('load_not_confirmed', 'not confirmed: nothing was sent', 'Answer y to start, or add --yes.');
}

function readPrevious(ctx: CommandContext, path: string): PreviousReport {
  let text: string;
  try {
    text = readFileSync(resolve(ctx.deps.cwd, path), 'utf8');
  } catch (error) {
    throw usageError('unreadable_load_report', `cannot read --compare ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseLoadReport(text, path);
}

/** Ctrl-C (or SIGTERM) ends the run early with a report of what ran. */
function stopOnSignal(): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

async function runLoadCommand(ctx: CommandContext, target: string, message: string | undefined, o: LoadOptions): Promise<void> {
  const plan = loadPlanOf(target, message, o, ctx.deps.cwd);
  // A bad --compare file is refused before anything is sent.
  const previous = o.compare === undefined ? undefined : readPrevious(ctx, o.compare);
  await confirmSafety(ctx, plan, o);
  const heading = `load ${isUrlTarget(target) ? shownUrl(target) : target}: ${describeModel(plan.model)}`;
  const view = LoadView.enabled(ctx.deps.io, ctx.out.mode) ? new LoadView(ctx.deps.io, plan, heading) : null;
  if (ctx.out.mode === 'human' && !view) ctx.deps.io.stderr(`${heading}…\n`);
  const stop = stopOnSignal();
  const onSnapshot = (s: LoadSnapshot) => {
    view?.update(s);
    ctx.out.event('load_snapshot', s, () => '');
  };
  const report = await runLoad(ctx.core, plan, { onSnapshot, signal: stop.signal }).finally(() => {
    stop.release();
    view?.finish();
  });
  const result: LoadResult = previous ? { ...report, comparison: compareReports(previous, report) } : report;
  if (o.report !== undefined) writePrivateFile(resolve(ctx.deps.cwd, o.report), `${JSON.stringify(ctx.out.envelope('load_report', result), null, 2)}\n`);
  if (report.generator.saturated)
    ctx.out.warning(
      `the generator fell ${report.generator.max_lag_ms.toFixed(1)} ms behind its schedule: this machine could not keep the target rate, so the latencies are not reliable`,
    );
  ctx.out.result('load_report', result, loadReportText);
}

export function registerLoadCommand(program: Command, action: Action): void {
  program
    .command('load <target> [message]')
    .description('load-test an agent, a group or a URL: open-loop (--rate) or closed-loop (--concurrency), with a latency and error report')
    .option('--rate <rate>', 'open-loop: start requests at this fixed rate, whatever the answers do (200/s, 200, 30/m)')
    .option(
      '--concurrency <n>',
      'closed-loop: this many virtual users, each sending its next request when its last is answered (default 1)',
      integer('--concurrency', 1, 10_000),
    )
    .option('--duration <duration>', 'how long to send, after the warm-up (30s, 5m)')
    .option('--requests <n>', 'how many requests to send (instead of --duration)', integer('--requests', 1))
    .option('--stream', 'SendStreamingMessage: also time the first event, between events and the final state')
    .addOption(new Option('--binding <binding>', 'require this binding').choices([...BINDINGS]))
    .option('--warmup <duration>', 'send for this long first, without counting it in the report')
    .option('--from-file <path>', 'cycle through these inputs: one JSON string or {"text", "parts"} object a line')
    .addOption(new Option('--until <state>', 'follow each task to its final state (by its stream, or GetTask polling)').choices(['final']))
    .option('--record', 'journal every request as send/stream does (slower), not one load record')
    .option('--yes', 'confirm a run of more than 1,000 requests without being asked')
    .option('--max-requests <n>', 'never plan or send more than this (default 100,000)', integer('--max-requests', 1))
    .option('--compare <file>', 'show the change from a report written earlier by --json or --report')
    .option('--report <file>', 'also write the JSON report to FILE (0600)')
    .action(action(async (ctx, target: string, message: string | undefined, o: LoadOptions) => runLoadCommand(ctx, target, message, o)));
}
