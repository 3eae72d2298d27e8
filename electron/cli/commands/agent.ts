/** `missive agent …`: presentation only; the registry and discovery services do the work. */
import { Command, Option, type OptionValues } from 'commander';
import { usageError } from '../../../shared/errors.js';
import { listAgentViews, showAgent, type AgentView } from '../../core/agents/views.js';
import type { CachedSelection, InspectView } from '../../core/agents/discovery.js';
import { BINDINGS, type Binding } from '../../core/config/schema.js';
import { BINDING_LABEL } from '../../core/a2a/binding-names.js';
import type { Action } from '../command-context.js';
import type { Core } from '../../core/handle.js';
import { collect } from '../options.js';
import { keyValues, table } from '../human.js';
import { securityText } from '../security-text.js';
import { cardWarningsText, extendedCardText, signatureText } from '../card-text.js';
import type { ExtendedCardView } from '../../core/agents/extended-card.js';

/** Whose agent: `shared` (the team's store), `personal` (this user's config file), else its source (`local`, `discovered`). */
const scopeLabel = (a: AgentView) => (a.scope === 'local' ? a.source : a.scope);

const showText = (a: AgentView, selection: CachedSelection) =>
  keyValues([
    ['alias', a.alias],
    ['source', `${scopeLabel(a)}${a.read_only ? ' (read-only)' : ''}`],
    ['base url', a.base_url],
    ['interfaces', Object.entries(a.interface_urls).map(([b, u]) => `${b}=${u}`)],
    ['binding preference', a.binding_preference],
    ['auth ref', a.auth_ref],
    ['trusted origins', a.trusted_origins],
    ['cross-origin calls', a.allow_cross_origin_auth ? 'allowed, without credentials' : null],
    ['client certificate', a.client_tls?.cert_file ? `${a.client_tls.cert_file} (key ${a.client_tls.key_file})` : undefined],
    ['server CA', a.client_tls?.ca_file ?? undefined],
    ['tags', a.tags],
    ['notes', a.notes],
    [
      'card',
      a.card.cached
        ? `${a.card.name ?? '(unnamed)'}, fetched ${a.card.fetched_at}, validated ${a.card.validated_at}`
        : 'not fetched yet (missive agent inspect ' + a.alias + ')',
    ],
    ...(a.card.cached ? interfacePairs(selection.selected_interface, selection.interface_error?.message) : []),
  ]);

const CREDENTIALS_TEXT: Record<InspectView['origin_pinning']['decision'], string> = {
  send: 'sent to the selected interface (same origin)',
  withhold: 'withheld: the interface is on another origin (--allow-cross-origin-auth)',
  refuse: 'refused: the interface is on another origin; calls fail with exit 77 (see --trust-origin, --allow-cross-origin-auth)',
  none: 'none configured',
};

/** The `selected` and `why` lines of `agent inspect` and `agent show`: the interface negotiation chose, and why (or why none). */
const interfacePairs = (s: InspectView['selected_interface'], error: string | undefined): Array<[string, string | undefined]> => {
  if (!s) return [['selected', `none: ${error?.replace(/^\w+ error: /, '') ?? 'no mutual binding'}`]];
  return [
    [
      'selected',
      `${BINDING_LABEL[s.binding] ?? s.binding} ${s.url} (card says A2A ${s.protocol_version}; missive speaks the ${s.dialect} dialect; from ${s.source})`,
    ],
    ['why', s.reason],
  ];
};

/** `1.0: the highest both speak (agent offers 1.0, 0.3; missive speaks 1.0, 0.3)`, and how the card was asked for. */
const versionText = (n: InspectView['negotiation']['version']) => {
  if (!n.spoken) return undefined;
  const sides = `agent offers ${n.agent_offers.join(', ') || 'no declared version'}; missive speaks ${n.missive_speaks.join(', ')}`;
  const how = n.forced ? 'forced by --protocol-version' : 'the highest both speak';
  const card =
    n.card_requested_with && n.card_requested_with !== n.missive_speaks[0]
      ? `; card asked for with A2A-Version ${n.card_requested_with} after ${n.missive_speaks[0]} was refused`
      : '';
  return `${n.spoken}: ${how} (${sides})${card}`;
};

/** The client certificate line of `agent inspect`: subject, issuer and expiry (the key is never read here). */
const clientCertText = (c: InspectView['client_tls']) => {
  if (!c) return undefined;
  if (!c.client_certificate) return `none (server CA ${c.ca_file})`;
  if (c.error) return `${c.cert_file}: ${c.error}`;
  const expiry = c.expired ? `EXPIRED ${c.valid_to}` : `valid until ${c.valid_to}`;
  return `${c.subject} (issued by ${c.issuer}), ${expiry}; key ${c.key_file}${c.passphrase_ref ? `, passphrase from auth ref "${c.passphrase_ref}"` : ''}${c.ca_file ? `; server CA ${c.ca_file}` : ''}`;
};

const inspectText = (v: InspectView) => {
  const lines = [
    keyValues([
      ['agent', `${v.agent.alias} → ${v.card.name}${v.card.version ? ` v${v.card.version}` : ''}`],
      ['description', v.card.description],
      ['provider', (v.card.provider as { organization?: string } | null)?.organization ?? null],
      [
        'card format',
        `A2A ${v.card.format}${v.card.declared_protocol_version ? ` (declares protocolVersion ${v.card.declared_protocol_version})` : ''}, from ${v.cache.url}`,
      ],
      ['protocol versions', v.card.protocol_versions],
      ['streaming', String((v.card.capabilities as { streaming?: boolean }).streaming === true)],
      ['push notifications', String((v.card.capabilities as { pushNotifications?: boolean }).pushNotifications === true)],
      ['input modes', v.card.default_input_modes],
      ['output modes', v.card.default_output_modes],
      ...interfacePairs(v.selected_interface, v.negotiation.error?.message),
      ['A2A version', versionText(v.negotiation.version)],
      [
        'credentials',
        v.origin_pinning.configured.length
          ? `${v.origin_pinning.configured.join(', ')}: ${CREDENTIALS_TEXT[v.origin_pinning.decision]}`
          : CREDENTIALS_TEXT.none,
      ],
      ['client certificate', clientCertText(v.client_tls)],
      ['card signature', signatureText(v.signature)],
      [
        'card cache',
        `${v.cache.status}${v.cache.etag ? `, etag ${v.cache.etag}` : ''}${v.cache.last_modified ? `, last-modified ${v.cache.last_modified}` : ''}`,
      ],
    ]),
  ];
  const warnings = cardWarningsText(v.card_warnings);
  if (warnings) lines.push('', warnings);
  if (v.card.supported_interfaces.length) {
    lines.push(
      '',
      'Interfaces',
      table(
        ['binding', 'version', 'url'],
        v.card.supported_interfaces.map((i) => [i.protocol_binding, i.protocol_version ?? '-', i.url]),
      ),
    );
  }
  const skills = v.card.skills as Array<{ id: string; name?: string; tags?: string[] }>;
  if (v.security) lines.push('', securityText(v.security));
  if (skills.length)
    lines.push(
      '',
      'Skills',
      table(
        ['id', 'name', 'tags'],
        skills.map((k) => [k.id, k.name ?? '', (k.tags ?? []).join(', ')]),
      ),
    );
  if (!v.negotiation.ok) {
    lines.push(
      '',
      `missive cannot talk to this agent: it offers ${v.negotiation.offered_bindings.join(', ') || 'no interface'}; missive speaks ${v.negotiation.supported_bindings.map((b) => BINDING_LABEL[b] ?? b).join(', ')}.`,
    );
  }
  return lines.join('\n');
};

/** Discovery (card parsing, the SDK codecs, HTTP) is loaded only by the commands that fetch a card, not by `agent list`. */
const discovery = () => import('../../core/agents/discovery.js');
/** The registry's changes (validation, the journal) are loaded only by the commands that make them. */
const registry = () => import('../../core/agents/registry.js');

/** `agent inspect` of an alias, a URL (a discovered agent, see ad-hoc.ts) or a card file (read, nothing stored). */
async function inspectTarget(core: Core, target: string, opts: { refresh?: boolean; binding?: Binding; extended?: boolean }, cwd: string) {
  const { cardFileOf, readCardFile } = await import('../../core/agents/card-source.js');
  const file = await cardFileOf(core, target, cwd);
  if (file) {
    if (opts.extended) throw usageError('conflicting_options', '--extended calls the agent: inspect a card file without it, or give the agent alias or URL');
    return (await discovery()).inspectCardResult(core, readCardFile(file), opts);
  }
  const alias = await (await import('../../core/agents/ad-hoc.js')).resolveAgentTarget(core, target);
  return (await import('../../core/agents/extended-card.js')).inspectAgentCard(core, alias, opts);
}

const bindingOption = () => new Option('--binding <binding>', 'require this binding').choices([...BINDINGS]);

export function registerAgentCommands(program: Command, action: Action): void {
  const agent = program.command('agent').description('register, inspect and manage A2A agents');

  agent
    .command('add <alias> [base-url]')
    .description(
      "register an agent by alias and base URL, or by its card's URL (one ending in agent-card.json or agent.json, or any URL under /.well-known/: the card is fetched now)",
    )
    .option(
      '--card-url <url>',
      'where the agent serves its Agent Card, when not at <base-url>/.well-known/agent-card.json (fetched now; the base URL defaults to its first HTTP interface)',
    )
    .option('--interface <binding=url>', 'explicit interface URL, e.g. json-rpc=http://host/rpc or grpc=host:50051 (repeatable)', collect, [])
    .option('--binding-preference <binding>', 'preferred binding order (repeatable; default http+json, json-rpc, grpc)', collect, [])
    .option('--trust-origin <origin>', "another origin that may receive this agent's credentials, e.g. https://api.example.com (repeatable)", collect, [])
    .option('--auth-ref <name>', 'auth ref from the config or `missive auth add`')
    .option('--tag <tag>', 'tag (repeatable)', collect, [])
    .option('--notes <text>', 'free-form notes')
    .option('--metadata <k=v>', 'non-secret metadata; JSON values are parsed (repeatable)', collect, [])
    .option('--client-cert <file>', 'mutual TLS: PEM client certificate presented to this agent (with --client-key)')
    .option('--client-key <file>', 'mutual TLS: PEM private key of the client certificate, possibly encrypted')
    .option('--ca-cert <file>', "mutual TLS: PEM CA bundle that verifies the agent's server certificate (replaces the default roots)")
    .option('--key-passphrase-ref <name>', 'mutual TLS: auth ref (env or keyring) holding the passphrase of an encrypted --client-key')
    .option('--jwks-url <url>', "signed cards: the JWKS with the keys that sign this agent's card (else the signature's jku)")
    .option('--jwks-file <file>', 'signed cards: the same keys from a local JWKS file')
    .action(
      action(async ({ core, out, deps }, alias: string, given: string | undefined, opts: OptionValues) => {
        const cardSource = await import('../../core/agents/card-source.js');
        const cardUrl: string | undefined = opts.cardUrl ?? (given && cardSource.isCardUrl(given) ? given : undefined);
        const baseUrl = given === cardUrl ? undefined : given;
        if (!baseUrl && !cardUrl)
          throw usageError(
            'missing_base_url',
            `agent add ${alias} needs the agent's base URL or its card URL`,
            `Give one: missive agent add ${alias} https://agent.example.com  (or --card-url https://host/path/agent-card.json)`,
          );
        const input = {
          alias,
          interfaces: opts.interface,
          bindingPreference: opts.bindingPreference,
          authRef: opts.authRef,
          tags: opts.tag,
          notes: opts.notes,
          metadata: opts.metadata,
          trustedOrigins: opts.trustOrigin,
          clientTls: { certFile: opts.clientCert, keyFile: opts.clientKey, caFile: opts.caCert, passphraseRef: opts.keyPassphraseRef, baseDir: deps.cwd },
          cardKeys: { jwksUrl: opts.jwksUrl, jwksFile: opts.jwksFile, baseDir: deps.cwd },
        };
        const view = cardUrl
          ? await cardSource.addAgentFromCard(core, { ...input, baseUrl, cardUrl })
          : await (await registry()).addAgent(core, { ...input, baseUrl: baseUrl! });
        out.result('agent_add', { agent: view }, (d) => `added agent ${d.agent.alias} (${d.agent.base_url})\nnext: missive agent inspect ${d.agent.alias}`);
      }),
    );

  agent
    .command('set <alias>')
    .description("change a local agent's auth ref, its mutual TLS files (a renewed certificate, a private CA) or its card-signing keys")
    .option('--auth-ref <name>', 'authenticate to this agent with this auth ref (see: missive auth list)')
    .option('--clear-auth-ref', 'send no auth ref credentials to this agent')
    .option('--client-cert <file>', 'PEM client certificate presented to this agent (with --client-key)')
    .option('--client-key <file>', 'PEM private key of the client certificate, possibly encrypted')
    .option('--ca-cert <file>', "PEM CA bundle that verifies the agent's server certificate (replaces the default roots)")
    .option('--key-passphrase-ref <name>', 'auth ref (env or keyring) holding the passphrase of an encrypted --client-key')
    .option('--clear-client-tls', 'remove the client certificate and CA bundle')
    .option('--jwks-url <url>', "the JWKS with the keys that sign this agent's card")
    .option('--jwks-file <file>', 'the same keys from a local JWKS file')
    .option('--clear-jwks', "verify the card's signatures with the signature's own jku again")
    .action(
      action(async ({ core, out, deps }, alias: string, opts: OptionValues) => {
        const authChange = opts.authRef !== undefined || opts.clearAuthRef === true;
        const tlsChange = [opts.clientCert, opts.clientKey, opts.caCert, opts.keyPassphraseRef].some((v) => v !== undefined) || opts.clearClientTls === true;
        const keysChange = opts.jwksUrl !== undefined || opts.jwksFile !== undefined || opts.clearJwks === true;
        if (opts.authRef !== undefined && opts.clearAuthRef)
          throw usageError('conflicting_options', '--auth-ref and --clear-auth-ref contradict each other: give one');
        if (opts.clearJwks && (opts.jwksUrl !== undefined || opts.jwksFile !== undefined))
          throw usageError('conflicting_options', '--clear-jwks removes the card keys: give it without --jwks-url / --jwks-file');
        if (!authChange && !tlsChange && !keysChange) {
          throw usageError(
            'nothing_to_set',
            `nothing to set on agent "${alias}"`,
            'Give --auth-ref NAME, --clear-auth-ref, --client-cert FILE --client-key FILE, --ca-cert FILE, --clear-client-tls, --jwks-url URL, --jwks-file FILE or --clear-jwks.',
          );
        }
        const { setAgentAuthRef, setAgentCardKeys, setAgentClientTls } = await registry();
        let view = authChange ? await setAgentAuthRef(core, alias, opts.clearAuthRef ? null : opts.authRef) : undefined;
        if (keysChange)
          view = await setAgentCardKeys(core, alias, opts.clearJwks ? null : { jwksUrl: opts.jwksUrl, jwksFile: opts.jwksFile, baseDir: deps.cwd });
        if (tlsChange) {
          view = await setAgentClientTls(core, alias, {
            clientTls: { certFile: opts.clientCert, keyFile: opts.clientKey, caFile: opts.caCert, passphraseRef: opts.keyPassphraseRef, baseDir: deps.cwd },
            clear: opts.clearClientTls === true,
          });
        }
        const changed = [
          ...(authChange ? [view!.auth_ref ? `auth ref ${view!.auth_ref}` : 'no auth ref'] : []),
          ...(tlsChange ? [view!.client_tls ? 'mutual TLS set' : 'mutual TLS removed'] : []),
          ...(keysChange ? [view!.card_keys ? 'card keys set' : 'card keys removed'] : []),
        ];
        out.result('agent_set', { agent: view! }, () => `${alias}: ${changed.join(', ')}\nnext: missive agent inspect ${alias}`);
      }),
    );

  agent
    .command('list')
    .description('list registered agents')
    .action(
      action(async ({ core, out }) => {
        const agents = await listAgentViews(core);
        out.result('agent_list', { agents, count: agents.length }, (d) =>
          d.count === 0
            ? 'no agents yet: register one with  missive agent add <alias> <base-url>'
            : table(
                ['alias', 'source', 'base url', 'card'],
                (d.agents as AgentView[]).map((a) => [a.alias, scopeLabel(a), a.base_url, a.card.cached ? (a.card.name ?? 'cached') : '-']),
              ),
        );
      }),
    );

  agent
    .command('show <alias>')
    .description('show one registry entry (no network)')
    .action(
      action(async ({ core, out }, alias: string) => {
        const agent = await showAgent(core, alias);
        // The interface a call would use and why, from the cached card (no network).
        const selection = (await discovery()).cachedSelection(core, await (await registry()).requireAgent(core, alias));
        out.result('agent_show', { agent, ...selection }, (d) => showText(d.agent, d));
      }),
    );

  agent
    .command('inspect <alias>')
    .description(
      'show the Agent Card and the selected interface (fetches the card when none is cached); <alias> may also be a URL (no registration needed) or a card file',
    )
    .option('--refresh', 'revalidate the cached card first (If-None-Match / If-Modified-Since)')
    .option('--extended', "also fetch the extended Agent Card (GetExtendedAgentCard, sent with the agent's auth)")
    .addOption(bindingOption())
    .action(
      action(async ({ core, out, deps }, alias: string, opts: { refresh?: boolean; binding?: Binding; extended?: boolean }) => {
        const view = await inspectTarget(core, alias, opts, deps.cwd);
        out.result('agent_inspect', view, (v: InspectView & { extended_card?: ExtendedCardView }) =>
          v.extended_card ? `${inspectText(v)}\n\n${extendedCardText(v.extended_card)}` : inspectText(v),
        );
      }),
    );

  agent
    .command('refresh <alias>')
    .description('conditionally re-fetch the Agent Card; 304 keeps the cached card')
    .action(
      action(async ({ core, out }, alias: string) => {
        out.result('agent_refresh', await (await discovery()).refreshAgent(core, alias), (d) =>
          d.status === 'not_modified' ? `${alias}: card not modified (validated ${d.validated_at})` : `${alias}: card fetched (${d.name})`,
        );
      }),
    );

  agent
    .command('capabilities <alias>')
    .description('capability labels from skills, tags, modes, streaming and push support')
    .option('--refresh', 'revalidate the cached card first')
    .action(
      action(async ({ core, out }, alias: string, opts: { refresh?: boolean }) => {
        out.result('agent_capabilities', await (await discovery()).agentCapabilities(core, alias, opts.refresh), (d) =>
          keyValues([
            ['agent', d.alias],
            ['streaming', String(d.streaming)],
            ['push notifications', String(d.push_notifications)],
            ['labels', d.labels],
          ]),
        );
      }),
    );

  agent
    .command('remove <alias>')
    .description('remove a locally registered agent')
    .action(
      action(async ({ core, out }, alias: string) =>
        out.result('agent_remove', await (await registry()).removeAgent(core, alias), () => `removed agent ${alias}`),
      ),
    );

  agent
    .command('rename <old> <new>')
    .description('rename a locally registered agent; its tasks follow, its past events keep the old alias')
    .action(
      action(async ({ core, out }, from: string, to: string) =>
        out.result('agent_rename', { from, agent: await (await registry()).renameAgentAlias(core, from, to) }, () => `renamed ${from} → ${to}`),
      ),
    );

  agent
    .command('trust <alias>')
    .description("shared store: confirm on this host that the agent's credentials may go to its origins as the store has them now")
    .action(
      action(async ({ core, out }, alias: string) => {
        const { trustAgent } = await import('../../core/agents/trust.js');
        out.result('agent_trust', await trustAgent(core, alias), (d) =>
          keyValues([
            ['agent', d.alias],
            ['credentials go to', d.origins.join(', ')],
            ['auth ref', d.auth_ref ?? '-'],
            ['before', d.previous ? `${d.previous.origins.join(', ')} (auth ref ${d.previous.auth_ref ?? '-'})` : 'not confirmed on this host'],
          ]),
        );
      }),
    );
}
