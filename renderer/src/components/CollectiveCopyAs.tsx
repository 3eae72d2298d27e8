/**
 * "Copy as missive command" / "Copy as curl" for the collective the Collectives view is about to run: the command is
 * `missive bcast|round <group> …` with the same flags the view sends; curl is one command per member, as
 * `requests.preview` builds the members' requests. Barrier, gather and reduce send no message, so they get none.
 */
import { CopyAs } from './CopyAs';
import { curlOfPreview, type CopyText } from './copy-text';
import { fanOutOptionsOf, quorumOf, type CollectiveOptionsValue } from './CollectiveOptions';
import { missiveCommand } from '../../../shared/copy-as';
import type { MessageInputs } from '../../../shared/ipc/contract';

interface Props {
  op: string;
  group: string;
  text: string;
  context: string;
  strategy: 'summarise' | 'vote' | 'merge' | 'rank';
  reducer: string;
  options: CollectiveOptionsValue;
}

/** The inputs the view sends for the operation (round starts a new context, bcast may continue one). */
const inputsOf = ({ op, text, context }: Props): MessageInputs => ({ text, ...(op === 'bcast' && context ? { contextId: context } : {}) });

/** The run's options as the CLI's flags; the deadline is the global `--timeout`, written right after `missive`. */
function commandOf(p: Props): CopyText {
  const inputs = inputsOf(p);
  const { timeoutMs, execution, failurePolicy } = fanOutOptionsOf(p.options);
  const flags = { failurePolicy, ...(execution === 'sequential' ? { execution } : {}) };
  const line =
    p.op === 'bcast'
      ? missiveCommand({ operation: 'bcast', group: p.group, inputs, ...flags })
      : missiveCommand({
          operation: 'round',
          group: p.group,
          inputs,
          ...flags,
          reduce: { strategy: p.strategy, ...(p.reducer ? { reducerAgent: p.reducer } : {}) },
        });
  const text = timeoutMs && Number.isFinite(timeoutMs) ? line.replace(/^missive /, `missive --timeout ${timeoutMs}ms `) : line;
  const quorum = p.op === 'round' ? quorumOf(p.options) : undefined;
  return {
    text,
    note: quorum !== undefined ? `missive round has no --required: for a quorum of ${quorum}, run bcast, then missive barrier --required ${quorum}.` : null,
  };
}

export function CollectiveCopyAs(props: Props) {
  if (!props.group || (props.op !== 'bcast' && props.op !== 'round')) return null;
  return (
    <CopyAs
      testId="collective-copy"
      label={`this ${props.op}`}
      command={() => commandOf(props)}
      curl={async () => {
        const copied = await curlOfPreview({ group: props.group }, 'send', inputsOf(props));
        const reduceNote = props.op === 'round' ? "Only the members' broadcast requests are shown: the round's reduce request depends on their answers." : null;
        return { ...copied, note: [copied.note, reduceNote].filter(Boolean).join(' ') || null };
      }}
    />
  );
}
