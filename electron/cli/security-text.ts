/** Human text of the `security` block of `agent inspect`: the card's schemes, its requirements, what missive sends. */
import type { CredentialOffer, InspectSecurity } from '../core/agents/inspect-security.js';
import { describeRequirement, describeScheme, type SchemeView } from '../core/a2a/security-schemes.js';
import { keyValues, table } from './human.js';

const KIND_TEXT: Record<CredentialOffer['kind'], string> = {
  bearer: 'a "Bearer" token',
  basic: 'a user name and password ("Basic")',
  api_key: 'an API key',
  header: 'a header value',
  oauth2_client_credentials: 'an OAuth2 access token (client credentials)',
  oauth2_device_code: 'an OAuth2 access token (device code)',
  mtls: 'a client certificate',
};

const offerText = (o: CredentialOffer) => `${o.source}: ${KIND_TEXT[o.kind]}${o.place === 'tls' ? '' : ` in ${o.place}${o.name ? ` ${o.name}` : ''}`}`;

/** Scopes of an OAuth2 scheme's flows, after its description. */
const schemeDetails = (s: SchemeView) => {
  const scopes = [...new Set(s.flows.flatMap((f) => f.scopes))];
  return `${describeScheme(s)}${scopes.length ? `; scopes ${scopes.join(', ')}` : ''}${s.description ? ` — ${s.description}` : ''}`;
};

function sendsText(security: InspectSecurity): string {
  const by = security.satisfied_by;
  if (!by) return security.schemes.length ? 'nothing: add an auth ref (missive auth add) and register the agent with --auth-ref' : 'nothing';
  const fit = by.schemes.length ? `fits ${by.schemes.join(', ')}` : security.schemes.length ? 'fits none of the declared schemes' : '';
  const met = by.requirement_met === null ? '' : by.requirement_met ? 'meets a requirement' : 'meets no requirement';
  return [by.sends.map(offerText).join('; '), [fit, met].filter(Boolean).join(', ')].filter(Boolean).join(' → ');
}

/** The "Security" block: a table of schemes (or a line saying there are none), the requirements and what missive sends. */
export function securityText(security: InspectSecurity): string {
  const lines = ['Security'];
  if (security.schemes.length)
    lines.push(
      table(
        ['scheme', 'type', 'details'],
        security.schemes.map((s) => [s.name, s.type, schemeDetails(s)]),
      ),
    );
  else lines.push('the card declares no security schemes');
  lines.push(
    keyValues([
      [
        'requires',
        security.requirements.length
          ? security.requirements.map(describeRequirement).join('  or  ')
          : security.schemes.length
            ? 'no requirement stated'
            : 'nothing',
      ],
      ['missive sends', sendsText(security)],
    ]),
  );
  return lines.join('\n');
}
