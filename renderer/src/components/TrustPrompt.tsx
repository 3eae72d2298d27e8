/**
 * The window's side of the shared store's trust model (docs/security.md, "Who decides what"): when a call was refused
 * because this host never confirmed a shared agent, or its row moved since (another origin, another auth ref), the
 * error says what changed and this asks the user: "Confirm on this host" records the agent as the store has it now
 * (`agents.trust`), after which the call can be made again. Nothing is confirmed without the click.
 */
import { useState } from 'react';
import { call } from '../api';
import { toReport } from '../hooks';
import type { IpcError } from '../../../shared/ipc/contract';

const TRUST_CODES = new Set(['missive::auth::agent_not_confirmed', 'missive::auth::shared_agent_changed']);

/** The agent a trust refusal names: its help ends with the exact command, `missive agent trust <alias>`. */
export function trustTarget(error: IpcError): string | null {
  if (!TRUST_CODES.has(error.code)) return null;
  return /missive agent trust (\S+)\s*$/.exec(error.help ?? '')?.[1] ?? null;
}

export function TrustPrompt({ error }: { error: IpcError }) {
  const alias = trustTarget(error);
  const [state, setState] = useState<{ busy: boolean; done: string[] | null; failed: IpcError | null }>({ busy: false, done: null, failed: null });
  if (!alias) return null;
  const confirm = async () => {
    setState({ busy: true, done: null, failed: null });
    try {
      const trusted = await call('agents.trust', { alias });
      setState({ busy: false, done: trusted.origins, failed: null });
    } catch (e) {
      setState({ busy: false, done: null, failed: toReport(e) });
    }
  };
  if (state.done) {
    return (
      <div className="trust-prompt" role="status" data-testid="trust-confirmed">
        Confirmed on this host: the credentials of {alias} may go to {state.done.join(', ')}. Try again.
      </div>
    );
  }
  return (
    <div className="trust-prompt" data-testid="trust-prompt">
      <button type="button" className="small" onClick={() => void confirm()} disabled={state.busy} data-testid="trust-confirm">
        Confirm {alias} on this host
      </button>
      <span className="muted small-text"> only if the origins above are where {alias} runs</span>
      {state.failed ? <div className="error-message">{state.failed.message}</div> : null}
    </div>
  );
}
