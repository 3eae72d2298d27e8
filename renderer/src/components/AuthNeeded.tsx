/**
 * The inspect panel's warning for an agent registered with Authentication: None whose card requires a security
 * scheme (shown at once after Register, which inspects): it names the scheme, and "Add an auth ref for …" opens the
 * auth ref form set up for that scheme (its flow, where the key goes, its token URL); once saved, the ref is bound
 * to the agent (`agents.set`) and the card is inspected again.
 */
import { useState } from 'react';
import { call } from '../api';
import { useAction } from '../hooks';
import { ErrorBox } from './common';
import { AuthRefForm, type AuthRefPreset } from './AuthRefForm';
import { authNeededWarning, requiredSchemes, type SchemeLike } from '../../../shared/auth-needed';
import type { ChannelOutput } from '../../../shared/ipc/contract';

type InspectView = ChannelOutput<'agents.inspect'>;

/** An auth ref name for `alias` and one of its card's schemes: `planner-bearer`. */
const refName = (alias: string, scheme: string) =>
  `${alias}-${scheme}`
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);

/** The auth ref form's first values for a scheme; null for one a ref cannot meet (mutual TLS, unknown). */
export function presetFor(alias: string, scheme: SchemeLike & { openid_connect_url?: string | null }): AuthRefPreset | null {
  const name = refName(alias, scheme.name);
  switch (scheme.type) {
    case 'http':
      return { name, kind: scheme.http_scheme === 'basic' ? 'basic' : 'bearer' };
    case 'api_key':
      return { name, kind: 'api_key', place: (scheme.in as AuthRefPreset['place']) ?? 'header', keyName: scheme.param_name ?? undefined };
    case 'oauth2': {
      const client = scheme.flows?.find((f) => f.flow === 'client_credentials');
      const device = scheme.flows?.find((f) => f.flow === 'device_code');
      if (device && !client)
        return { name, kind: 'oauth2_device_code', tokenUrl: device.token_url ?? undefined, deviceUrl: device.device_authorization_url ?? undefined };
      return { name, kind: 'oauth2_client_credentials', tokenUrl: client?.token_url ?? undefined };
    }
    case 'openid_connect':
      return { name, kind: 'oauth2_client_credentials', issuer: scheme.openid_connect_url?.replace(/\/\.well-known\/openid-configuration\/?$/, '') };
    default:
      return null;
  }
}

export function AuthNeeded({ view, onBound }: { view: InspectView; onBound: () => void }) {
  const [adding, setAdding] = useState(false);
  // Whether a secret typed now lasts until the app quits only: asked when the form opens.
  const auth = useAction(() => call('auth.list', {}));
  const alias = view.agent.alias;
  const bind = useAction(async (name: string) => {
    await call('agents.set', { alias, authRef: name });
    setAdding(false);
    onBound();
  });
  const warning = authNeededWarning(alias, view.security);
  if (!warning || view.agent.auth_ref || view.security.satisfied_by) return null;
  const scheme = requiredSchemes(view.security)[0]!;
  const preset = presetFor(alias, scheme);
  return (
    <div className="card-warnings auth-needed" role="status" data-testid="auth-needed">
      <p>
        <span aria-hidden="true">⚠ </span>
        {warning}.
      </p>
      {preset ? (
        adding ? null : (
          <button
            type="button"
            className="small"
            onClick={() => {
              setAdding(true);
              void auth.run();
            }}
            data-testid="auth-needed-add"
            disabled={view.agent.read_only}
          >
            Add an auth ref for “{scheme.name}”
          </button>
        )
      ) : (
        <p className="muted small-text">
          {scheme.type === 'mtls' ? `Give ${alias} a client certificate with Edit.` : 'missive has no auth ref for this scheme.'}
        </p>
      )}
      {adding && preset ? (
        <AuthRefForm
          preset={preset}
          sessionOnly={auth.data?.keyring.session_only ?? false}
          onSaved={(name) => void bind.run(name)}
          onCancel={() => setAdding(false)}
        />
      ) : null}
      <ErrorBox error={bind.error} />
    </div>
  );
}
