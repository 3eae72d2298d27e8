/** `missive group …` and `missive route explain`: presentation only. */
import { Option, type Command } from 'commander';
import type { Core } from '../../core/handle.js';
import {
  addMember,
  createGroup,
  deleteGroup,
  groupCapabilities,
  listGroups,
  MAX_RANK,
  removeMember,
  requireGroup,
  updateGroup,
  type GroupView,
} from '../../core/collectives/groups.js';
import { explainRoute, ROUTE_POLICIES, type RouteExplanation } from '../../core/collectives/route.js';
import type { Action } from '../command-context.js';
import { collect, integer } from '../options.js';
import { keyValues, table } from '../human.js';
import { BINDING_LABEL } from '../../core/a2a/binding-names.js';

type PolicySource = 'group' | 'config' | 'default';
const isRoutePolicy = (p: string | undefined): p is string => (ROUTE_POLICIES as readonly string[]).includes(p ?? '');

/**
 * The routing policy `route explain` uses for a group, always one of the documented ones: the group's own, else
 * `[routing].default_policy`, else `first` (a group created without one stores none, written `direct` in the store).
 */
function withPolicy<G extends { routing_policy: string }>(core: Core, g: G): G & { routing_policy_source: PolicySource } {
  const configured = core.config.routing.defaultPolicy;
  const [routing_policy, routing_policy_source]: [string, PolicySource] = isRoutePolicy(g.routing_policy)
    ? [g.routing_policy, 'group']
    : isRoutePolicy(configured)
      ? [configured, 'config']
      : ['first', 'default'];
  return { ...g, routing_policy, routing_policy_source };
}

const policyText = (g: { routing_policy: string; routing_policy_source: PolicySource }) =>
  g.routing_policy_source === 'group'
    ? g.routing_policy
    : `${g.routing_policy} (${g.routing_policy_source === 'config' ? '[routing].default_policy' : 'default'})`;

const groupText = (g: GroupView & { routing_policy_source: PolicySource }) =>
  `${keyValues([
    ['group', g.group_name],
    ['policy', policyText(g)],
    ['notes', g.notes],
    ['members', g.members.length],
  ])}${
    g.members.length
      ? `\n\n${table(
          ['RANK', 'AGENT'],
          g.members.map((m) => [String(m.rank), m.agent_alias]),
        )}`
      : '\n\nNo members yet: missive group add <group> <alias>'
  }`;

/** Which interface a call to each candidate would use and why (the words of `agent inspect`), or why none. */
const interfaceLines = (r: RouteExplanation): string[] => {
  const lines = r.candidates.flatMap((c) =>
    c.interface
      ? [`${c.alias}: ${BINDING_LABEL[c.interface.binding] ?? c.interface.binding} ${c.interface.url} (${c.interface.reason})`]
      : c.interface_error
        ? [`${c.alias}: no interface missive can call (${c.interface_error})`]
        : [],
  );
  return lines.length ? ['', 'Interfaces', ...lines] : [];
};

/** Candidates routed without a card get a line saying how to cache one. */
const missingCardsHint = (r: RouteExplanation): string[] => {
  const missing = r.candidates.filter((c) => c.card === 'missing').map((c) => c.alias);
  return missing.length ? ['', `no cached card for ${missing.join(', ')}: \`missive agent inspect <alias>\` caches one, or add --refresh-capabilities`] : [];
};

export function registerGroupCommands(program: Command, action: Action): void {
  const group = program.command('group').description('groups of agents with unique ranks, for collectives');
  group
    .command('create <name>')
    .description('create a group; members as ALIAS or ALIAS@RANK (others take the smallest free ranks in order)')
    .option('--member <alias[@rank]>', 'member (repeatable)', collect, [])
    .option('--notes <text>', 'free-form notes')
    .addOption(
      new Option('--routing-policy <policy>', 'the policy route explain uses for this group (else [routing].default_policy, then first)').choices([
        ...ROUTE_POLICIES,
      ]),
    )
    .action(
      action(async ({ core, out }, name: string, o: { member: string[]; notes?: string; routingPolicy?: string }) =>
        out.result(
          'group_create',
          withPolicy(core, await createGroup(core, name, { members: o.member, notes: o.notes, routingPolicy: o.routingPolicy })),
          groupText,
        ),
      ),
    );
  group
    .command('add <name> <alias>')
    .description('add a member (or move it to --rank)')
    .option('--rank <n>', `rank, 0 to ${MAX_RANK}; default the smallest free one`, integer('--rank', 0, MAX_RANK))
    .action(
      action(async ({ core, out }, name: string, alias: string, o: { rank?: number }) =>
        out.result('group_add', withPolicy(core, await addMember(core, name, alias, o.rank)), groupText),
      ),
    );
  group
    .command('remove <name> <alias>')
    .description('remove a member')
    .action(
      action(async ({ core, out }, name: string, alias: string) =>
        out.result('group_remove', withPolicy(core, await removeMember(core, name, alias)), groupText),
      ),
    );
  group
    .command('set <name>')
    .description("change a group's routing policy or notes (members: group add / group remove)")
    .addOption(new Option('--routing-policy <policy>', 'the policy route explain uses for this group').choices([...ROUTE_POLICIES]))
    .option('--notes <text>', "free-form notes ('' clears them)")
    .action(
      action(async ({ core, out }, name: string, o: { routingPolicy?: string; notes?: string }) =>
        out.result('group_set', withPolicy(core, await updateGroup(core, name, { routingPolicy: o.routingPolicy, notes: o.notes })), groupText),
      ),
    );
  group
    .command('list')
    .description('list groups')
    .action(
      action(async ({ core, out }) =>
        out.result(
          'group_list',
          { groups: (await listGroups(core)).map((g) => withPolicy(core, g)) },
          (d: { groups: Array<Awaited<ReturnType<typeof listGroups>>[number] & { routing_policy_source: PolicySource }> }) =>
            d.groups.length
              ? table(
                  ['GROUP', 'MEMBERS', 'POLICY'],
                  d.groups.map((g) => [g.group_name, String(g.members), policyText(g)]),
                )
              : 'No groups yet: missive group create <name> --member <alias>...',
        ),
      ),
    );
  group
    .command('show <name>')
    .description('show a group and its members in rank order')
    .action(action(async ({ core, out }, name: string) => out.result('group_show', withPolicy(core, await requireGroup(core, name)), groupText)));
  group
    .command('delete <name>')
    .description('delete a group (its agents stay registered)')
    .action(action(async ({ core, out }, name: string) => out.result('group_delete', await deleteGroup(core, name), (d) => `deleted group ${d.group}`)));
  group
    .command('capabilities <name>')
    .description("members' capability labels and the labels they share (cached cards unless --refresh)")
    .option('--refresh', 'revalidate every card first')
    .action(
      action(async ({ core, out }, name: string, o: { refresh?: boolean }) =>
        out.result('group_capabilities', await groupCapabilities(core, name, o.refresh), (d: Awaited<ReturnType<typeof groupCapabilities>>) =>
          [
            table(
              ['RANK', 'AGENT', 'LABELS'],
              d.members.map((m) => [String(m.rank), m.alias, m.error ? `error: ${m.error}` : m.labels.join(', ')]),
            ),
            '',
            `shared: ${d.common_labels.join(', ') || '-'}`,
          ].join('\n'),
        ),
      ),
    );

  program
    .command('route')
    .description('routing dry runs')
    .command('explain [group]')
    .description('which member(s) a policy would choose and why, from cached cards; nothing is sent')
    .option('--agents <a,b,...>', 'candidates instead of a group')
    .option('--policy <policy>', `${ROUTE_POLICIES.join(' | ')} (default: the group's, then [routing].default_policy, then first)`)
    .option('--need <label>', 'required capability label (repeatable)', collect, [])
    .option('--cursor <n>', "round-robin cursor (default: the group's stored cursor)", integer('--cursor', 0, Number.MAX_SAFE_INTEGER))
    .option('--refresh-capabilities', "revalidate the candidates' cards first")
    .action(
      action(
        async (
          { core, out },
          name: string | undefined,
          o: { agents?: string; policy?: string; need: string[]; cursor?: number; refreshCapabilities?: boolean },
        ) =>
          out.result(
            'route_explain',
            await explainRoute(core, {
              group: name,
              agents: o.agents
                ?.split(',')
                .map((s) => s.trim())
                .filter(Boolean),
              policy: o.policy,
              needs: o.need,
              cursor: o.cursor,
              refresh: o.refreshCapabilities,
            }),
            (r: RouteExplanation) =>
              [
                `policy ${r.policy} (${r.policy_source})${r.needs.length ? `, needs ${r.needs.join(', ')}` : ''}`,
                `chosen: ${r.chosen.join(', ') || 'none'}`,
                '',
                table(
                  ['', 'RANK', 'AGENT', 'CARD', 'WHY'],
                  r.candidates.map((c) => [c.chosen ? '→' : ' ', String(c.rank), c.alias, c.card, c.reason]),
                ),
                ...(r.next_round_robin_cursor !== null ? ['', `next round-robin cursor: ${r.next_round_robin_cursor}`] : []),
                ...interfaceLines(r),
                ...missingCardsHint(r),
              ].join('\n'),
          ),
      ),
    );
}
