/**
 * The inspect panel's security section: the schemes the Agent Card declares (`agents.inspect` → `security`), one row
 * each with what it asks for (HTTP bearer/basic, an API key and where it goes, OAuth2 flows with their URLs and
 * scopes, OpenID Connect, mutual TLS), the requirements (alternatives), and what missive would send to satisfy them —
 * by source and kind, never a value — or a hint to add an auth ref when it would send nothing.
 */
import type { ChannelOutput } from '../../../shared/ipc/contract';

type Security = ChannelOutput<'agents.inspect'>['security'];
type Scheme = Security['schemes'][number];

const TYPE_LABEL: Record<Scheme['type'], string> = {
  http: 'HTTP',
  api_key: 'API key',
  oauth2: 'OAuth2',
  openid_connect: 'OpenID Connect',
  mtls: 'Mutual TLS',
  unknown: 'Unknown',
};

const FLOW_LABEL: Record<string, string> = {
  client_credentials: 'client credentials',
  device_code: 'device code',
  authorization_code: 'authorization code',
  implicit: 'implicit',
  password: 'password',
};

/** What one scheme asks for, in a few words. */
function details(s: Scheme): string {
  switch (s.type) {
    case 'http':
      return `${s.http_scheme === 'bearer' ? 'Bearer token' : s.http_scheme === 'basic' ? 'Basic (user name and password)' : (s.http_scheme ?? '?')}${s.bearer_format ? `, format ${s.bearer_format}` : ''}`;
    case 'api_key':
      return `in ${s.in ?? 'an unstated place'}${s.param_name ? ` ${s.param_name}` : ''}`;
    case 'oauth2':
      return (
        s.flows
          .map((f) => {
            const urls = [
              f.device_authorization_url && `device ${f.device_authorization_url}`,
              f.authorization_url && `authorize ${f.authorization_url}`,
              f.token_url && `token ${f.token_url}`,
            ]
              .filter(Boolean)
              .join(', ');
            return `${FLOW_LABEL[f.flow] ?? f.flow}${urls ? ` (${urls})` : ''}${f.scopes.length ? `; scopes ${f.scopes.join(', ')}` : ''}`;
          })
          .join(' · ') || (s.oauth2_metadata_url ? `metadata ${s.oauth2_metadata_url}` : 'no flow listed')
      );
    case 'openid_connect':
      return s.openid_connect_url ?? 'no discovery URL';
    case 'mtls':
      return 'a client certificate';
    default:
      return 'not a scheme missive knows';
  }
}

const requirementText = (r: Security['requirements'][number]) =>
  r.schemes.map((s) => `${s.name}${s.scopes.length ? ` (${s.scopes.join(', ')})` : ''}`).join(' + ');

function SendsText({ security }: { security: Security }) {
  const by = security.satisfied_by;
  if (!by) {
    return (
      <span className={security.schemes.length ? 'health warn' : 'muted'} data-testid="security-sends" data-met="none">
        {security.schemes.length ? (
          <>
            nothing: add an auth ref (<code>missive auth add</code>) and register the agent with <code>--auth-ref</code>
          </>
        ) : (
          'nothing'
        )}
      </span>
    );
  }
  const met = by.requirement_met;
  const cls = met === false || (security.schemes.length > 0 && by.schemes.length === 0) ? 'health warn' : met ? 'health ok' : '';
  return (
    <span className={cls} data-testid="security-sends" data-met={met === null ? 'unstated' : String(met)}>
      {by.sends.map((o) => `${o.source} (${o.kind.replace(/_/g, ' ')}${o.place === 'tls' ? '' : ` in ${o.place}${o.name ? ` ${o.name}` : ''}`})`).join('; ')}
      <span className="muted">
        {' '}
        {by.schemes.length ? `fits ${by.schemes.join(', ')}` : security.schemes.length ? 'fits none of the declared schemes' : ''}
        {met === null ? '' : met ? ', meets a requirement' : ', meets no requirement'}
      </span>
    </span>
  );
}

export function SecuritySchemes({ view }: { view: ChannelOutput<'agents.inspect'> }) {
  const security = view.security;
  return (
    <div className="interface-table-wrap" data-testid="security">
      {security.schemes.length ? (
        <table className="table interface-table" data-testid="security-schemes">
          <caption>
            Security schemes the card declares <span className="muted">(what the agent asks callers for)</span>
          </caption>
          <thead>
            <tr>
              <th>Scheme</th>
              <th>Type</th>
              <th>Asks for</th>
            </tr>
          </thead>
          <tbody>
            {security.schemes.map((s) => (
              <tr key={s.name} data-testid="security-scheme" data-type={s.type}>
                <td className="mono">{s.name}</td>
                <td>{TYPE_LABEL[s.type] ?? s.type}</td>
                <td>
                  {details(s)}
                  {s.description ? <span className="muted"> · {s.description}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted" data-testid="security-schemes-none">
          The card declares no security schemes.
        </p>
      )}
      <dl className="kv">
        <dt>Requires</dt>
        <dd data-testid="security-requirements">
          {security.requirements.length
            ? security.requirements.map(requirementText).join(' or ')
            : security.schemes.length
              ? 'no requirement stated'
              : 'nothing'}
        </dd>
        <dt>missive sends</dt>
        <dd>
          <SendsText security={security} />
        </dd>
      </dl>
    </div>
  );
}
