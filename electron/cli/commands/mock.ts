/**
 * `missive mock serve` (an A2A agent that replays a recorded conversation: core/mock/server.ts) and `missive mock
 * record` (a proxy that records a live agent: core/mock/record.ts). Both run until SIGINT / SIGTERM (or --timeout).
 * docs/mock.md has the flags, the matching rules, the error a miss gets and --strict's exit code.
 */
import type { Command } from 'commander';
import { protocolError, usageError } from '../../../shared/errors.js';
import type { Action } from '../command-context.js';
import type { Core } from '../../core/handle.js';
import { integer } from '../options.js';
import { untilSignal } from '../signals.js';
import { parseDuration } from '../../core/config/duration.js';
import type { HostBinding, HostVersion } from '../../core/demo/agent-host.js';
import type { Latency } from '../../core/mock/replay-executor.js';
import type { MatchMode, RecordingSource } from '../../core/mock/recording.js';

interface ServeFlags {
  fromContext?: string;
  fromHistory?: string;
  fromExport?: string;
  agent?: string;
  port?: number;
  host?: string;
  allowRemote?: boolean;
  bindings?: string;
  versions?: string;
  latency?: string;
  match?: string;
  strict?: boolean;
  register?: string;
}

const BINDINGS: Record<string, HostBinding> = { 'http+json': 'http+json', rest: 'http+json', 'json-rpc': 'json-rpc', jsonrpc: 'json-rpc', grpc: 'grpc' };
const VERSIONS: readonly HostVersion[] = ['1.0', '0.3'];
const MATCH_MODES: readonly MatchMode[] = ['exact', 'normalised', 'sequence'];

/** A comma list of allowed values, each once, at least one. */
function listOf<T>(flag: string, text: string, known: Record<string, T>): T[] {
  const out: T[] = [];
  for (const raw of text.split(',').map((s) => s.trim().toLowerCase())) {
    const value = known[raw];
    if (value === undefined) throw usageError('invalid_flag', `${flag} does not know "${raw}"`, `Use a comma list of: ${Object.keys(known).join(', ')}.`);
    if (!out.includes(value)) out.push(value);
  }
  if (!out.length) throw usageError('invalid_flag', `${flag} names nothing`);
  return out;
}

function sourceOf(o: ServeFlags): RecordingSource {
  const given = [
    o.fromContext !== undefined && { context: o.fromContext },
    o.fromHistory !== undefined && { history: o.fromHistory },
    o.fromExport !== undefined && { export: o.fromExport },
  ].filter(Boolean) as RecordingSource[];
  if (given.length !== 1) {
    throw usageError(
      'recording_source',
      given.length ? 'give one recording source, not several' : 'mock serve needs a recording',
      'Pass exactly one of --from-context ID|NAME, --from-history FILE or --from-export FILE.',
    );
  }
  return given[0]!;
}

export function latencyOf(text: string): Latency {
  const t = text.trim().toLowerCase();
  if (t === 'recorded' || t === 'none') return t;
  return parseDuration(t, '--latency');
}

const bindHost = async (host: string | undefined, allowRemote: boolean | undefined, serve: string) => {
  const { checkBindHost } = await import('../../core/web-console/bind.js');
  checkBindHost(host ?? '127.0.0.1', allowRemote, { serve, exposes: 'anyone who reaches it can drive it', listens: 'it listens' });
};

/**
 * `--register ALIAS`: registers the mock as ALIAS, which stays registered after shutdown (its journal keeps the tasks it
 * answered). A run with the same --port finds it registered at its URL already and reuses it; another URL is refused.
 */
async function registerMock(core: Core, alias: string, url: string, agent: string): Promise<void> {
  const existing = await (await core.storage()).agents.get(alias);
  if (existing && existing.baseUrl.replace(/\/+$/, '') === url) return;
  if (existing) {
    throw usageError(
      'register_taken',
      `--register ${alias}: an agent named "${alias}" is registered at ${existing.baseUrl}, not at this mock (${url})`,
      'Pass the --port it was registered with, or another alias.',
    );
  }
  const { addAgent } = await import('../../core/agents/registry.js');
  await addAgent(core, { alias, baseUrl: url, notes: `missive mock of ${agent}` });
}

/**
 * The SDK server logs each push callback with console.info (to stdout): while a mock or proxy serves, console.info
 * and console.log are silenced so stdout holds only missive's own output (the --json document scripts read). The
 * SDK's errors still go to stderr.
 */
function quietSdkInfo(): () => void {
  const { info, log } = console;
  console.info = () => undefined;
  console.log = () => undefined;
  return () => {
    console.info = info;
    console.log = log;
  };
}

export function registerMockCommands(program: Command, action: Action): void {
  const mock = program.command('mock').description('serve a recorded agent for CI, or record a live one (docs/mock.md)');
  mock
    .command('serve')
    .description('serve an A2A agent that answers what a recorded agent answered, until Ctrl-C')
    .option('--from-context <id|name>', 'replay a context of the journal')
    .option('--from-history <file>', 'replay `missive history show --json` output saved to a file')
    .option('--from-export <file>', 'replay a `missive context export` file (or what `mock record` wrote)')
    .option('--agent <alias>', 'when the recording talked to several agents, the one to replay (default: the first)')
    .option('--port <n>', 'the HTTP port, 0 to 65535 (default 0: any free port)', integer('--port', 0, 65_535))
    .option('--host <ip>', 'the address to bind (default 127.0.0.1)')
    .option('--allow-remote', 'allow a non-loopback --host')
    .option('--bindings <list>', 'comma list of http+json, json-rpc, grpc (default all three)')
    .option('--versions <list>', 'comma list of 1.0, 0.3 (default both)')
    .option('--latency <mode>', 'recorded (the default: events at their recorded offsets), none, or a duration between events (50ms)')
    .option('--match <mode>', 'exact, normalised (the default) or sequence: how a request finds its recorded exchange')
    .option('--strict', 'at shutdown, print the diff and fail (exit 76) when a request matched nothing or an exchange was never served')
    .option('--register <alias>', 'register the mock as this agent (kept after shutdown; a later run on the same --port reuses it)')
    .action(
      action(async ({ core, out, deps, flags }, o: ServeFlags) => {
        const source = sourceOf(o);
        const bindings = o.bindings === undefined ? undefined : listOf('--bindings', o.bindings, BINDINGS);
        const versions = o.versions === undefined ? undefined : listOf('--versions', o.versions, Object.fromEntries(VERSIONS.map((v) => [v, v])));
        const latency = latencyOf(o.latency ?? 'recorded');
        if (o.match !== undefined && !MATCH_MODES.includes(o.match as MatchMode)) {
          throw usageError('invalid_flag', `--match does not know "${o.match}"`, `Use one of: ${MATCH_MODES.join(', ')}.`);
        }
        await bindHost(o.host, o.allowRemote, 'a mock agent');
        const { loadRecording } = await import('../../core/mock/load-recording.js');
        const recording = await loadRecording(core, source, deps.cwd, o.agent ? { agent: o.agent } : undefined);
        const { serveMock } = await import('../../core/mock/server.js');
        const restoreConsole = quietSdkInfo();
        const server = await serveMock(core, {
          recording,
          port: o.port ?? 0,
          host: o.host,
          bindings,
          versions,
          latency,
          match: (o.match as MatchMode | undefined) ?? 'normalised',
          strict: o.strict === true,
        }).catch((error: unknown) => {
          restoreConsole();
          throw error;
        });
        let shutdown: Awaited<ReturnType<typeof server.close>> | undefined;
        try {
          if (o.register) await registerMock(core, o.register, server.url, recording.agent);
          const shown = {
            url: server.url,
            port: server.port,
            card_url: server.cardUrl,
            grpc_target: server.grpcTarget,
            bindings: server.bindings,
            versions: server.versions,
            agent: recording.agent,
            source: recording.source,
            exchanges: recording.exchanges.length,
            registered_as: o.register ?? null,
          };
          out.result('mock_server', shown, (d) =>
            [
              `missive mock of "${d.agent}": ${d.url}`,
              `  card: ${d.card_url}`,
              `  bindings: ${d.bindings.join(', ')}${d.grpc_target ? ` (gRPC at ${d.grpc_target})` : ''}; versions: ${d.versions.join(', ')}`,
              `  replaying ${d.exchanges} exchange(s) from ${d.source}${d.registered_as ? `; registered as "${d.registered_as}"` : ''}; Ctrl-C to stop`,
            ].join('\n'),
          );
          await untilSignal(flags.timeout ? core.timeoutMs : undefined);
        } finally {
          shutdown = await server.close();
          restoreConsole();
        }
        const failed = o.strict === true && (shutdown.misses > 0 || shutdown.unserved.length > 0);
        out.result('mock_shutdown', { misses: shutdown.misses, unserved: shutdown.unserved, diff: shutdown.diff, strict: o.strict === true }, (d) =>
          [`mock stopped: ${d.misses} unmatched request(s), ${d.unserved.length} exchange(s) never served`, ...(failed && d.diff ? [d.diff] : [])].join('\n'),
        );
        if (failed) {
          throw protocolError(
            'mock_strict_mismatch',
            `--strict: ${shutdown.misses} request(s) matched no recorded exchange and ${shutdown.unserved.length} exchange(s) were never served`,
            'Read the diff above: the client sent what the recording does not hold (or not all of it).',
          );
        }
        return 0;
      }),
    );
  mock
    .command('record <alias>')
    .description('serve a proxy of a registered agent that records every exchange to FILE (a context export), until Ctrl-C')
    .requiredOption('--to <file>', 'the file to write (rewritten after each exchange); `mock serve --from-export FILE` replays it')
    .option('--port <n>', 'the HTTP port, 0 to 65535 (default 0: any free port)', integer('--port', 0, 65_535))
    .option('--force', 'overwrite FILE when it exists')
    .action(
      action(async ({ core, out, deps, flags }, alias: string, o: { to: string; port?: number; force?: boolean }) => {
        const { startMockRecord } = await import('../../core/mock/record.js');
        const restoreConsole = quietSdkInfo();
        const recorder = await startMockRecord(core, { alias, to: o.to, cwd: deps.cwd, port: o.port ?? 0, force: o.force === true }).catch((error: unknown) => {
          restoreConsole();
          throw error;
        });
        let done: { exchanges: number; path: string } | undefined;
        try {
          const shown = {
            url: recorder.url,
            // `bearer`, not `token`: the output redacts every key that ends in "token", and this one is for the user.
            bearer: recorder.bearer,
            port: recorder.port,
            card_url: recorder.cardUrl,
            agent: alias,
            context_id: recorder.contextId,
            path: recorder.path,
          };
          out.result('mock_recorder', shown, (d) =>
            [
              `missive recording proxy of "${d.agent}": ${d.url}`,
              `  card: ${d.card_url}`,
              `  send "Authorization: Bearer ${d.bearer}" with every request (this launch's token; keep it to yourself)`,
              `  recording context ${d.context_id} to ${d.path} (rewritten after each exchange); Ctrl-C to stop`,
            ].join('\n'),
          );
          await untilSignal(flags.timeout ? core.timeoutMs : undefined);
        } finally {
          done = await recorder.close();
          restoreConsole();
        }
        out.result('mock_recorded', done, (d) => `recorded ${d.exchanges} exchange(s) to ${d.path}`);
        return 0;
      }),
    );
}
