/**
 * The agent page's signed-card badge: the card's JWS signature status from `agents.inspect` (verified with its key
 * id, unsigned, or invalid with the reason), and, when the card advertises an extended card, a button that fetches
 * it (`agents.inspect` with `extended`, sent with the agent's auth) and shows what it adds.
 */
import { call } from '../api';
import { useAction } from '../hooks';
import { ErrorBox } from './common';
import type { ChannelOutput } from '../../../shared/ipc/contract';

type InspectView = ChannelOutput<'agents.inspect'>;
type Signature = InspectView['signature'];

const SOURCE_TEXT: Record<NonNullable<Signature['key_source']>, string> = {
  jku: "the signature's jku",
  jwks_url: 'the configured jwks_url',
  jwks_file: 'the configured jwks_file',
};

/** One badge: ✓ verified (kid), ○ unsigned, ✗ invalid: reason. */
export function SignatureBadge({ signature, testId = 'card-signature' }: { signature: Signature | undefined; testId?: string }) {
  if (!signature) return null;
  const { status } = signature;
  const cls = status === 'verified' ? 'health ok' : status === 'invalid' ? 'health bad' : 'health warn';
  const detail =
    status === 'verified'
      ? `kid ${signature.kid}${signature.key_source ? `, key from ${SOURCE_TEXT[signature.key_source]}` : ''}`
      : status === 'invalid'
        ? signature.reason
        : 'the card carries no signature';
  return (
    <span className={cls} data-testid={testId} data-status={status}>
      <span aria-hidden="true">{status === 'verified' ? '✓' : status === 'invalid' ? '✗' : '○'}</span> {status} <span className="muted">{detail}</span>
    </span>
  );
}

export function CardSignature({ view }: { view: InspectView }) {
  const extended = useAction(() => call('agents.inspect', { alias: view.agent.alias, extended: true }));
  const advertises = view.card.capabilities.extendedAgentCard === true;
  // The panel is reused when another agent is inspected: an extended card fetched for the previous one is not shown.
  const ext = extended.data?.agent.alias === view.agent.alias ? (extended.data.extended_card ?? null) : null;
  return (
    <dl className="kv" data-testid="card-trust">
      <dt>Card signature</dt>
      <dd>
        <SignatureBadge signature={view.signature} />
      </dd>
      {advertises ? (
        <>
          <dt>Extended card</dt>
          <dd>
            <button type="button" className="small" onClick={() => void extended.run()} disabled={extended.busy} data-testid="fetch-extended-card">
              {extended.busy ? 'Fetching…' : 'Fetch extended card'}
            </button>
            <ErrorBox error={extended.error} />
            {ext ? (
              <div data-testid="extended-card">
                <strong>{ext.card.name}</strong> <span className="muted">via {ext.interface.binding}</span>{' '}
                <SignatureBadge signature={ext.signature} testId="extended-card-signature" />
                <div className="muted small-text">{ext.added_skills.length ? `adds skills: ${ext.added_skills.join(', ')}` : 'adds no skills'}</div>
              </div>
            ) : null}
          </dd>
        </>
      ) : null}
    </dl>
  );
}
