/**
 * The command palette (Ctrl+K / ⌘K): one box to reach the views, the agents (open one in Agents, or compose to it)
 * and the window's actions (start the demo agents, a new conversation, refresh the cards, the theme, the shortcuts).
 * Typed words narrow the list (every word must match); ↑/↓ pick, Enter runs, Escape closes. A modal <dialog>.
 */
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { call } from '../api';
import { toReport, useSharedStore } from '../hooks';
import { useStore, VIEWS } from '../store';

interface Entry {
  id: string;
  group: 'View' | 'Agent' | 'Action';
  label: string;
  run: () => void | Promise<void>;
}

/** Whether every typed word occurs in the entry's group or label. */
const matches = (entry: Entry, query: string) => {
  const haystack = `${entry.group} ${entry.label}`.toLowerCase();
  return query
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
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

  const shown = entries.filter((e) => matches(e, query));
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
        aria-label="Command: a view, an agent or an action"
        placeholder="Type a view, an agent or an action…"
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
