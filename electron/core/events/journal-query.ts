/** The journal's own filters as the CLI gives them: a type prefix (`--type a2a.push.*`) and an outcome (`--outcome`). */
import { usageError } from '../../../shared/errors.js';
import { EVENT_OUTCOMES, type EventOutcome } from '../store/rows/journal-query.js';

export { EVENT_OUTCOMES, type EventOutcome, type JournalQuery } from '../store/rows/journal-query.js';

/** A `--type` value: an exact type, or a prefix ending in `.*` (`a2a.push.*`). */
export function parseTypeFilter(type: string | undefined): { exact?: string; prefix?: string } {
  if (!type) return {};
  if (!type.includes('*')) return { exact: type };
  const prefix = type.slice(0, -1);
  if (!type.endsWith('.*') || prefix.includes('*') || prefix === '.') {
    throw usageError(
      'invalid_event_type',
      `--type "${type}" is neither an event type nor a prefix ending in ".*"`,
      'Use an exact type (a2a.send.completed) or a prefix (a2a.send.*).',
    );
  }
  return { prefix };
}

export function parseOutcome(outcome: string | undefined): EventOutcome | undefined {
  if (outcome === undefined) return undefined;
  if (!(EVENT_OUTCOMES as readonly string[]).includes(outcome))
    throw usageError('invalid_outcome', `--outcome "${outcome}" is not known`, `Use: ${EVENT_OUTCOMES.join(', ')}.`);
  return outcome as EventOutcome;
}
