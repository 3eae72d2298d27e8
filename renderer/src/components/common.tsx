/** Small shared building blocks of the views: error box, empty state, JSON tree and field access, labelled field, tabs, state colour. */
import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react';
import type { IpcError } from '../../../shared/ipc/contract';
import { TrustPrompt } from './TrustPrompt';
import { ErrorAction } from './ErrorAction';

/**
 * An error as the window shows it: what went wrong, its stable code (what to search for or quote), and the help that
 * names the fix: the window's own (GUI actions, and a button for the one it names) where the CLI's names commands.
 * The CLI's exit code means nothing in a window and is left out.
 */
export function ErrorBox({ error }: { error: IpcError | null }) {
  if (!error) return null;
  return (
    <div className="error" role="alert" data-testid="error">
      <div className="error-message" data-testid="error-message">
        {error.message}
      </div>
      <div className="error-code" data-testid="error-code">
        {error.code}
      </div>
      {error.gui_help || error.help ? (
        <div className="error-help" data-testid="error-help">
          {error.gui_help ?? error.help}
        </div>
      ) : null}
      <ErrorAction action={error.gui_action} />
      <TrustPrompt error={error} />
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty" data-testid="empty">
      <strong>{title}</strong>
      <div className="muted">{children}</div>
    </div>
  );
}

export function JsonTree({ value, label = 'root', depth = 0 }: { value: unknown; label?: string; depth?: number }) {
  if (value === null || typeof value !== 'object') {
    return (
      <div className="json-leaf">
        <span className="json-key">{label}</span>: <span className={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>
      </div>
    );
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  return (
    <details className="json-node" open={depth < 2}>
      <summary>
        <span className="json-key">{label}</span> {Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}
      </summary>
      {entries.map(([k, v]) => (
        <JsonTree key={k} label={k} value={v} depth={depth + 1} />
      ))}
    </details>
  );
}

export function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <label className="field">
      <span>{label}</span>
      {children}
    </label>
  );
}

/**
 * The value at `path` inside JSON the contract leaves open (an agent's own answer, a journal payload, a card field
 * no parser checks); undefined when any step is missing or not an object.
 */
export function jsonAt(value: unknown, ...path: string[]): unknown {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

/** A JSON value when it is a string, else null. */
export const stringOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export const stateClass = (state: string | null | undefined) => `state state-${(state ?? 'none').replace(/[^a-z_]/g, '')}`;

export interface TabSpec<T extends string> {
  id: T;
  label: string;
  render: () => ReactNode;
}

/** ARIA tabs: a tablist of buttons (Left/Right/Home/End move between them) and the selected tab's panel. */
export function Tabs<T extends string>({ label, tabs, value, onChange }: { label: string; tabs: TabSpec<T>[]; value: T; onChange: (id: T) => void }) {
  const base = useId();
  const list = useRef<HTMLDivElement>(null);
  const selected = tabs.find((t) => t.id === value) ?? tabs[0]!;
  const onKeyDown = (e: KeyboardEvent) => {
    const at = tabs.findIndex((t) => t.id === selected.id);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    const tab = tabs[(next + tabs.length) % tabs.length]!;
    onChange(tab.id);
    list.current?.querySelector<HTMLButtonElement>(`#${CSS.escape(`${base}-${tab.id}`)}`)?.focus();
  };
  return (
    <div className="tabs">
      <div className="tablist" role="tablist" aria-label={label} ref={list} onKeyDown={onKeyDown}>
        {tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${base}-${t.id}`}
            aria-selected={t.id === selected.id}
            aria-controls={`${base}-panel`}
            tabIndex={t.id === selected.id ? 0 : -1}
            className={t.id === selected.id ? 'tab active' : 'tab'}
            data-testid={`tab-${t.id}`}
            onClick={() => onChange(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div className="tabpanel" role="tabpanel" id={`${base}-panel`} aria-labelledby={`${base}-${selected.id}`} tabIndex={0}>
        {selected.render()}
      </div>
    </div>
  );
}
