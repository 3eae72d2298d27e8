/**
 * The command palette (Ctrl+K / ⌘K): one box to reach the views, the agents (open one in Agents, or compose to it),
 * the tasks, contexts and history entries by their id (the newest ID_ENTRIES of each, listed when a typed word of 3
 * or more characters starts the id) and the window's actions (start the demo agents, a new conversation, refresh the cards, the
 * theme, the shortcuts). Typed words narrow the list (every word must match); ↑/↓ pick, Enter runs, Escape closes.
 * An "open" entry selects its item in its view, shows it and moves the focus to it. A modal <dialog>.
 */
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { call } from '../api';
import { toReport, useSharedStore } from '../hooks';
import { useStore, VIEWS } from '../store';

interface Entry {
  id: string;
  group: 'View' | 'Agent' | 'Task' | 'Context' | 'Message' | 'Action';
  label: string;
  /** An item found by its id: listed only when a typed word starts that id. */
  itemId?: string;
  run: () => void | Promise<void>;
}

/** How many of the newest tasks, contexts and history entries the palette offers by id. */
export const ID_ENTRIES = 500;
/** The typed length from which tasks, contexts and messages are listed (a few characters of an id). */
const ID_QUERY_MIN = 3;

interface IdItem {
  kind: 'task' | 'context' | 'message';
  id: string;
  /** What tells it apart besides its id: agent, state, name or first words. */
  about: string;
}

const oneLine = (text: string | null | undefined, max = 60) => {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The newest tasks, contexts and history entries, as the palette lists them (a list that fails is left out). */
async function loadIdItems(): Promise<IdItem[]> {
  const [tasks, contexts, history] = await Promise.all([
    call('tasks.list', { pageSize: ID_ENTRIES }).catch(() => null),
    call('contexts.list', {}).catch(() => null),
    call('history.list', { limit: ID_ENTRIES }).catch(() => null),
  ]);
  return [
    ...(tasks?.tasks ?? []).map((t): IdItem => ({ kind: 'task', id: t.task_id, about: [t.agent_alias, t.state].filter(Boolean).join(' · ') })),
    ...(contexts?.contexts ?? []).slice(0, ID_ENTRIES).map((c): IdItem => ({
      kind: 'context',
      id: c.context_id,
      about: [c.name, c.agent, c.preview ? `“${oneLine(c.preview)}”` : null].filter(Boolean).join(' · '),
    })),
    ...(history?.entries ?? []).map((h): IdItem => ({
      kind: 'message',
      id: h.message_id,
      about: [h.operation, h.agent_alias, h.request_text ? `“${oneLine(h.request_text)}”` : null].filter(Boolean).join(' · '),
    })),
  ];
}

const ID_GROUP = { task: 'Task', context: 'Context', message: 'Message' } as const;
const ID_VIEW = { task: 'Tasks', context: 'Contexts', message: 'History' } as const;

/** Whether every typed word occurs in the entry's group or label (and, for an item found by id, one word starts its id). */
const matches = (entry: Entry, query: string) => {
  const haystack = `${entry.group} ${entry.label}`.toLowerCase();
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (entry.itemId !== undefined && !words.some((w) => w.length >= ID_QUERY_MIN && entry.itemId!.toLowerCase().startsWith(w))) return false;
  return words.every((word) => haystack.includes(word));
};

export function CommandPalette({
  open,
  onClose,
  onToggleTheme,
  onShowShortcuts,
}: {
  open: boolean;
  onClose: () => void;
  onToggleTheme: () => void;
  onShowShortcuts: () => void;
}) {
  const { setView, navigate, openInCompose, notify } = useStore();
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const [agents, setAgents] = useState<string[]>([]);
  const [idItems, setIdItems] = useState<IdItem[]>([]);
  // The demo agents live in a personal store only: not offered on a shared one.
  const sharedStore = useSharedStore();
  const base = useId();

  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) {
      setQuery('');
      setActive(0);
      el.showModal();
      input.current?.focus();
      // The agents as they are now (one registered a moment ago included).
      call('agents.list', {})
        .then((r) => setAgents(r.agents.map((a) => a.alias)))
        .catch(() => setAgents([]));
      void loadIdItems().then(setIdItems);
    }
    if (!open && el.open) el.close();
  }, [open]);

  const entries = useMemo<Entry[]>(() => {
    const report = (what: string) => (e: unknown) => {
      const error = toReport(e);
      notify('error', `${what} failed: ${error.message} (${error.code})`);
    };
    return [
      ...VIEWS.map(([id, label]): Entry => ({ id: `view-${id}`, group: 'View', label: `Go to ${label}`, run: () => setView(id) })),
      ...agents.flatMap((alias): Entry[] => [
        { id: `agent-open-${alias}`, group: 'Agent', label: `${alias}: open in Agents`, run: () => navigate('agent', alias) },
        {
          id: `agent-compose-${alias}`,
          group: 'Agent',
          label: `${alias}: compose a message`,
          run: () => openInCompose({ agent: alias, mode: 'send', inputs: {} }),
        },
      ]),
      ...(sharedStore !== false
        ? []
        : [
            {
              id: 'action-demo',
              group: 'Action' as const,
              label: 'Start the demo agents',
              run: async () => {
                try {
                  const started = await call('demo.start', {});
                  notify('info', `Demo agents started: ${started.agents.map((a) => a.alias).join(', ')}`);
                  setView('agents');
                } catch (e) {
                  report('Starting the demo agents')(e);
                }
              },
            },
          ]),
      {
        id: 'action-new-conversation',
        group: 'Action',
        label: 'New conversation (Compose)',
        run: () => openInCompose({ agent: null, mode: 'send', inputs: {} }),
      },
      {
        id: 'action-refresh-cards',
        group: 'Action',
        label: "Refresh every agent's card",
        run: async () => {
          try {
            const r = await call('agents.refreshAll', {});
            const failed = r.agents.filter((a) => !a.ok).map((a) => a.alias);
            notify(
              failed.length ? 'warning' : 'info',
              failed.length ? `Cards refreshed; these failed: ${failed.join(', ')}` : `Cards refreshed (${r.agents.length})`,
            );
          } catch (e) {
            report('Refreshing the cards')(e);
          }
        },
      },
      { id: 'action-theme', group: 'Action', label: 'Switch theme (dark / light)', run: onToggleTheme },
      { id: 'action-shortcuts', group: 'Action', label: 'Keyboard shortcuts', run: onShowShortcuts },
    ];
  }, [agents, sharedStore, setView, navigate, openInCompose, notify, onToggleTheme, onShowShortcuts]);

  const idEntries = useMemo<Entry[]>(
    () =>
      idItems.map((item) => ({
        id: `${item.kind}-${item.id}`,
        group: ID_GROUP[item.kind],
        label: `${item.id}${item.about ? ` · ${item.about}` : ''}: open in ${ID_VIEW[item.kind]}`,
        itemId: item.id,
        run: () => navigate(item.kind, item.id),
      })),
    [idItems, navigate],
  );
  const shown = [...entries, ...idEntries].filter((e) => matches(e, query));
  const current = shown[Math.min(active, shown.length - 1)];
  const runEntry = (entry: Entry | undefined) => {
    if (!entry) return;
    onClose();
    void entry.run();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const step = { ArrowDown: 1, ArrowUp: -1 }[e.key];
    if (step !== undefined && shown.length) {
      e.preventDefault();
      setActive((a) => (Math.min(a, shown.length - 1) + step + shown.length) % shown.length);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      runEntry(current);
    }
  };
  const optionId = (entry: Entry) => `${base}-${entry.id}`;
  // The dialog's close event is queued after close(): a Ctrl+K that opened it again meanwhile must not be undone by it.
  const closed = () => {
    if (!dialog.current?.open) onClose();
  };

  return (
    <dialog ref={dialog} className="modal palette" aria-label="Command palette" onClose={closed} data-testid="palette">
      <input
        ref={input}
        className="palette-input"
        role="combobox"
        aria-expanded="true"
        aria-controls={`${base}-list`}
        aria-activedescendant={current ? optionId(current) : undefined}
        aria-autocomplete="list"
        aria-label="Command: a view, an agent, an id or an action"
        placeholder="Type a view, an agent, a task, context or message id, or an action…"
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setActive(0);
        }}
        onKeyDown={onKeyDown}
        data-testid="palette-input"
      />
      <ul className="palette-list" role="listbox" id={`${base}-list`} aria-label="matching commands">
        {shown.map((entry) => (
          // Reached with the arrow keys from the input (aria-activedescendant); a click runs it too.
          <li
            key={entry.id}
            id={optionId(entry)}
            role="option"
            aria-selected={entry === current}
            className={entry === current ? 'palette-option active' : 'palette-option'}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => runEntry(entry)}
            data-testid="palette-option"
          >
            <span className="palette-group">{entry.group}</span> {entry.label}
          </li>
        ))}
      </ul>
      {shown.length === 0 ? <p className="muted palette-none">Nothing matches “{query}”.</p> : null}
    </dialog>
  );
}
