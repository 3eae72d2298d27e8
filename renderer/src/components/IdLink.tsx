/**
 * A task, context or message id shown as a link to the view that shows it: Tasks with the task selected, Contexts
 * with the context opened, History with the message opened. Shows `label` (or the id, shortened in the middle when
 * long) and keeps the full id in its title and accessible name.
 */
import { useStore, type IdKind } from '../store';

const KIND_VIEW_LABEL: Record<IdKind, string> = { task: 'Tasks', context: 'Contexts', message: 'History' };

/** A long id shortened in the middle (the full id stays in the title). */
export const shortId = (id: string) => (id.length > 18 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id);

export function IdLink({ kind, id, label }: { kind: IdKind; id: string; label?: string }) {
  const { navigate } = useStore();
  return (
    <button
      type="button"
      className="id-link mono"
      data-testid={`idlink-${kind}`}
      data-id={id}
      title={`Open ${kind} ${id} in ${KIND_VIEW_LABEL[kind]}`}
      aria-label={`${label ?? shortId(id)}: ${kind} ${id}, open in ${KIND_VIEW_LABEL[kind]}`}
      onClick={(e) => {
        e.stopPropagation();
        navigate(kind, id);
      }}
    >
      {label ?? shortId(id)}
    </button>
  );
}
