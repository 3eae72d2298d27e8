import type { ReactNode } from 'react';
import type { IpcError } from '../../../shared/ipc/contract';

export function ErrorBox({ error }: { error: IpcError | null }) {
  if (!error) return null;
  return (
    <div className="error" role="alert" data-testid="error">
      <strong className="error-code">{error.code}</strong> <span className="muted">(exit {error.exit_code})</span>
      <div>{error.message}</div>
      {error.help ? <div className="muted">{error.help}</div> : null}
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

export const stateClass = (state: string | null | undefined) => `state state-${(state ?? 'none').replace(/[^a-z_]/g, '')}`;
