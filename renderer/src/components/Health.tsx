/**
 * An agent's health as the journal knows it (`agents.health`): reachable, unreachable with the failing error's code,
 * or never contacted; with the age of the last success or failure. A fetched card with no interface missive can call
 * (`interface_problem`) is never shown as "reachable ok": every call to it would fail. A failed check the view just ran (a card fetch
 * whose failure the journal does not hold) is shown instead. Used by the Agents and Collectives views.
 */
import { useMemo } from 'react';
import { call } from '../api';
import { useLoad } from '../hooks';
import type { AgentHealth, IpcError } from '../../../shared/ipc/contract';
import { parseTime, Time } from './Time';

/** Loads `agents.health` once; `byAlias` maps each alias to its health, `reload` reads it again. */
export function useAgentHealth() {
  const health = useLoad(() => call('agents.health', {}), []);
  const byAlias = useMemo(() => new Map((health.data?.agents ?? []).map((h) => [h.alias, h] as const)), [health.data]);
  return { byAlias, error: health.error, busy: health.busy, reload: health.run };
}

/** True when the last failure is newer than the last success (or there is no success). */
function failedLast(h: AgentHealth): boolean {
  if (!h.last_error) return false;
  const ok = parseTime(h.last_ok_at)?.getTime() ?? -Infinity;
  return (parseTime(h.last_error.at)?.getTime() ?? 0) >= ok;
}

/** A check the view ran itself: when it failed, what failed and when. */
export interface FailedCheck {
  error: IpcError;
  at: string;
}

export function HealthCell({ health, failedCheck }: { health: AgentHealth | undefined; failedCheck?: FailedCheck | null }) {
  if (failedCheck) {
    const transport = failedCheck.error.category === 'transport';
    return (
      <span
        className={transport ? 'health bad' : 'health warn'}
        data-testid="health"
        data-state={transport ? 'unreachable' : 'reachable'}
        title={failedCheck.error.message}
      >
        <span aria-hidden="true">●</span> {transport ? 'unreachable' : 'reachable, card fetch failed'}{' '}
        <span className="error-code">{failedCheck.error.code}</span>{' '}
        <span className="muted">
          <Time at={failedCheck.at} show="age" />
        </span>
      </span>
    );
  }
  if (!health) return <span className="health unknown muted">…</span>;
  if (health.reachable === null && !health.last_error) {
    return (
      <span className="health none" data-testid="health" data-state="never">
        <span aria-hidden="true">○</span> never contacted
      </span>
    );
  }
  if (health.reachable === false) {
    return (
      <span className="health bad" data-testid="health" data-state="unreachable" title={health.last_error?.message}>
        <span aria-hidden="true">●</span> unreachable <span className="error-code">{health.last_error?.code ?? ''}</span>{' '}
        <span className="muted">
          <Time at={health.last_error?.at} show="age" />
        </span>
      </span>
    );
  }
  if (health.interface_problem) {
    // The card came, but no interface of it can be called: calling this "reachable ok" would be untrue.
    return (
      <span className="health warn" data-testid="health" data-state="no-interface" title={health.interface_problem}>
        <span aria-hidden="true">●</span> card fetched, no interface missive can call <span className="muted">(see Inspect)</span>
      </span>
    );
  }
  const failing = failedLast(health);
  return (
    <span
      className={failing ? 'health warn' : 'health ok'}
      data-testid="health"
      data-state="reachable"
      title={failing ? health.last_error?.message : undefined}
    >
      <span aria-hidden="true">●</span> reachable{' '}
      <span className="muted">
        {failing ? (
          <>
            last call failed <span className="error-code">{health.last_error!.code}</span> <Time at={health.last_error!.at} show="age" />
          </>
        ) : (
          <>
            ok <Time at={health.last_ok_at} show="age" />
          </>
        )}
      </span>
    </span>
  );
}
