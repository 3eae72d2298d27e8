/**
 * Which arguments and option values complete to names kept in the store: agent aliases, groups, context names and
 * recent task ids. The placeholders alone do not say it (`<name>` is a group under `group show` but a new name under
 * `context name`), so the rules name the commands. The scripts ask `missive __complete <kind>` for the values.
 */
export const STORE_VALUE_KINDS = ['agents', 'groups', 'contexts', 'tasks'] as const;
export type StoreValueKind = (typeof STORE_VALUE_KINDS)[number];

const OPTION_VALUES: Record<string, StoreValueKind> = {
  '--agent': 'agents',
  '--reducer-agent': 'agents',
  '--member': 'agents',
  '--group': 'groups',
  '--context': 'contexts',
  '--from-context': 'contexts',
  '--task': 'tasks',
};

/** What the value of option `long` of the command at `path` (`['missive', 'send']`) completes to from the store. */
export function optionStoreValues(path: readonly string[], long: string | undefined): StoreValueKind | undefined {
  void path;
  return long ? OPTION_VALUES[long] : undefined;
}

/** What argument `name` of the command at `path` completes to from the store (new names complete to nothing). */
export function argumentStoreValues(path: readonly string[], name: string): StoreValueKind | undefined {
  const [, top, sub] = path;
  if (name === 'agent' || name === 'old' || (name === 'target' && top === 'load') || (name === 'alias' && !(top === 'agent' && sub === 'add'))) return 'agents';
  if (name === 'group' || (name === 'name' && top === 'group' && sub !== 'create')) return 'groups';
  if (name === 'context') return 'contexts';
  if (name === 'task-id' || (name === 'id' && top === 'task')) return 'tasks';
  return undefined;
}
