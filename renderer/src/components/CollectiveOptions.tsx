/**
 * The options of a collective run, as the CLI names them: failure policy (`--failure-policy stop|continue`, shown as
 * fail-fast / continue), execution (`--execution`), quorum (barrier `--required`; a round's barrier) and the deadline
 * (`--timeout`). Each is shown only for the operations that take it.
 */
import type { Operation } from './collective-members';
import '../collectives.css';

export interface CollectiveOptionsValue {
  failurePolicy: 'stop' | 'continue';
  execution: 'concurrent' | 'sequential';
  /** Digits, or '' for the default (a round: every member the bcast reached; a barrier: every member). */
  quorum: string;
  /** Whole seconds, or '' for the profile's `[qos].timeout`. */
  timeoutSeconds: string;
}

export const DEFAULT_OPTIONS: CollectiveOptionsValue = { failurePolicy: 'continue', execution: 'concurrent', quorum: '', timeoutSeconds: '' };

const takes = {
  failurePolicy: ['round', 'bcast', 'barrier'],
  execution: ['round', 'bcast'],
  quorum: ['round', 'barrier'],
  timeout: ['round', 'bcast', 'barrier'],
} as const satisfies Record<string, readonly Operation[]>;
const has = (list: readonly Operation[], op: Operation) => list.includes(op);

/** The number typed, or undefined when blank (a non-number goes through as NaN for the core to refuse by name). */
const numberOf = (text: string): number | undefined => (text.trim() === '' ? undefined : Number(text.trim()));

/** The fan-out options as `collectives.bcast|round` take them. */
export function fanOutOptionsOf(o: CollectiveOptionsValue) {
  const seconds = numberOf(o.timeoutSeconds);
  return { failurePolicy: o.failurePolicy, execution: o.execution, ...(seconds !== undefined ? { timeoutMs: Math.round(seconds * 1000) } : {}) };
}

export const quorumOf = (o: CollectiveOptionsValue): number | undefined => numberOf(o.quorum);

export function CollectiveOptions({
  op,
  value,
  onChange,
  members,
}: {
  op: Operation;
  value: CollectiveOptionsValue;
  onChange: (v: CollectiveOptionsValue) => void;
  members: number;
}) {
  if (!has(takes.failurePolicy, op) && !has(takes.timeout, op)) return null;
  const set = <K extends keyof CollectiveOptionsValue>(key: K, v: CollectiveOptionsValue[K]) => onChange({ ...value, [key]: v });
  return (
    <fieldset className="collective-options" data-testid="collective-options">
      <legend>Options</legend>
      {has(takes.failurePolicy, op) ? (
        <div className="option-group" role="radiogroup" aria-label="Failure policy">
          <span className="option-label">Failure policy</span>
          <label className="op-option">
            <input
              type="radio"
              name="failure-policy"
              value="continue"
              checked={value.failurePolicy === 'continue'}
              onChange={() => set('failurePolicy', 'continue')}
            />
            <strong>continue</strong>{' '}
            <span className="muted">{op === 'barrier' ? 'only the quorum decides' : 'send to every member; go on with those that answered'}</span>
          </label>
          <label className="op-option">
            <input type="radio" name="failure-policy" value="stop" checked={value.failurePolicy === 'stop'} onChange={() => set('failurePolicy', 'stop')} />
            <strong>fail-fast</strong> <span className="muted">{op === 'barrier' ? 'any failed member decides' : 'no new sends after the first failure'}</span>
          </label>
        </div>
      ) : null}
      <div className="row">
        {has(takes.execution, op) ? (
          <label className="field">
            <span>Execution</span>
            <select name="execution" value={value.execution} onChange={(e) => set('execution', e.target.value === 'sequential' ? 'sequential' : 'concurrent')}>
              <option value="concurrent">concurrent</option>
              <option value="sequential">sequential (one member after another)</option>
            </select>
          </label>
        ) : null}
        {has(takes.quorum, op) ? (
          <label className="field">
            <span>Quorum (members that must complete)</span>
            <input
              name="quorum"
              type="number"
              min={1}
              max={Math.max(1, members)}
              step={1}
              inputMode="numeric"
              value={value.quorum}
              onChange={(e) => set('quorum', e.target.value)}
              placeholder={op === 'round' ? 'all reached' : `all (${members})`}
            />
          </label>
        ) : null}
        {has(takes.timeout, op) ? (
          <label className="field">
            <span>Timeout (seconds)</span>
            <input
              name="timeout"
              type="number"
              min={1}
              max={3600}
              step={1}
              inputMode="numeric"
              value={value.timeoutSeconds}
              onChange={(e) => set('timeoutSeconds', e.target.value)}
              placeholder="profile default"
            />
          </label>
        ) : null}
      </div>
    </fieldset>
  );
}
