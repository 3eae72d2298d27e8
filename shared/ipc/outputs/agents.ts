/** What `agents.*` answer: the registered agent, and `agents.inspect` with its card, interfaces, trust and security. */
import { z } from 'zod';
import { count, dialect, loose, maybeText, reportedError, selectedInterface, text } from './common.js';

/** A registered agent (core/agents/registry.ts `AgentView`). */
export const agentView = loose({
  alias: text,
  source: z.enum(['local', 'config_seed', 'discovered']),
  /** `shared`: a row of the team's PostgreSQL store; `personal`: from this user's config file; `local`: this user's own store. */
  scope: z.enum(['shared', 'personal', 'local']),
  read_only: z.boolean(),
  base_url: text,
  interface_urls: z.record(z.string(), z.string()),
  binding_preference: z.array(text),
  auth_ref: maybeText,
  tags: z.array(text),
  notes: maybeText,
  metadata: z.record(z.string(), z.unknown()),
  trusted_origins: z.array(text),
  allow_cross_origin_auth: z.boolean(),
  client_tls: loose({ cert_file: maybeText, key_file: maybeText, ca_file: maybeText, passphrase_ref: maybeText }).nullable(),
  card_keys: loose({ jwks_url: maybeText, jwks_file: maybeText }).nullable(),
  /** The cached card: whether there is one, its name, and when it was fetched and last validated. */
  card: loose({ cached: z.boolean(), name: maybeText, fetched_at: maybeText, validated_at: maybeText, etag: maybeText, last_modified: maybeText }),
  created_at: text,
  updated_at: text,
});

/** A card's JWS signature status (core/a2a/card-signature.ts `SignatureView`). */
export const signatureView = loose({
  status: z.enum(['verified', 'unsigned', 'invalid']),
  kid: maybeText,
  reason: maybeText,
  key_source: z.enum(['jku', 'jwks_url', 'jwks_file']).nullable(),
});

/** The client certificate presented to an agent (shared/client-tls-view.ts `ClientTlsView`): its facts, never the key. */
export const clientTlsView = loose({
  client_certificate: z.boolean(),
  cert_file: maybeText,
  key_file: maybeText,
  ca_file: maybeText,
  passphrase_ref: maybeText,
  subject: maybeText,
  issuer: maybeText,
  valid_from: maybeText,
  valid_to: maybeText,
  expired: z.boolean().nullable(),
  fingerprint_sha256: maybeText,
  error: maybeText,
});

/** The security a card declares and what missive would send (core/agents/inspect-security.ts `InspectSecurity`). */
const securityScheme = loose({
  name: text,
  type: z.enum(['http', 'api_key', 'oauth2', 'openid_connect', 'mtls', 'unknown']),
  description: maybeText,
  http_scheme: maybeText,
  bearer_format: maybeText,
  in: z.enum(['header', 'query', 'cookie']).nullable(),
  param_name: maybeText,
  flows: z.array(
    loose({
      flow: z.enum(['client_credentials', 'device_code', 'authorization_code', 'implicit', 'password']),
      token_url: maybeText,
      authorization_url: maybeText,
      device_authorization_url: maybeText,
      refresh_url: maybeText,
      scopes: z.array(text),
    }),
  ),
  oauth2_metadata_url: maybeText,
  openid_connect_url: maybeText,
});
export const inspectSecurity = loose({
  schemes: z.array(securityScheme),
  /** Alternatives: any one satisfies the agent; empty when the card states none. */
  requirements: z.array(loose({ schemes: z.array(loose({ name: text, scopes: z.array(text) })) })),
  satisfied_by: loose({
    auth_ref: maybeText,
    sends: z.array(
      loose({
        source: text,
        kind: z.enum(['bearer', 'basic', 'api_key', 'header', 'oauth2_client_credentials', 'oauth2_device_code', 'mtls']),
        place: z.enum(['header', 'query', 'cookie', 'tls']),
        name: maybeText,
      }),
    ),
    schemes: z.array(text),
    requirement_met: z.boolean().nullable(),
  }).nullable(),
});

/** One skill of a card (the card parser guarantees an id). */
const cardSkill = loose({ id: text, name: text.optional() });
/** A card's capabilities object (`streaming`, `pushNotifications`, `extendedAgentCard`, extensions…). */
const capabilities = z.record(z.string(), z.unknown());

/** The extended card `agents.inspect` with `extended` adds (core/agents/extended-card.ts `ExtendedCardView`). */
export const extendedCardView = loose({
  interface: loose({ binding: text, url: text, dialect: text }),
  card: loose({
    name: text,
    description: maybeText,
    version: maybeText,
    capabilities,
    supported_interfaces: z.array(loose({ protocol_binding: text, url: text, protocol_version: maybeText })),
    skills: z.array(cardSkill),
    security_schemes: z.unknown(),
  }),
  /** Skill ids the extended card lists and the public card does not. */
  added_skills: z.array(text),
  signature: signatureView,
  raw_card: z.unknown(),
});

/** A problem of a card missive still reads (core/agents/card-warnings.ts `CardWarning`). */
export const cardWarning = loose({ code: text, severity: z.enum(['warning', 'info']), field: maybeText, message: text });

/** The card as the agent serves it, read or refused (core/agents/raw-card.ts `RawCardView`). */
export const rawCardView = loose({ url: text, http_status: count, raw_card: z.unknown(), is_json: z.boolean(), issues: z.array(text) });

/** `agent inspect` (core/agents/discovery.ts `InspectView`), with `extended_card` when asked for. */
export const inspectView = loose({
  agent: agentView,
  cache: loose({
    status: z.enum(['cached', 'fetched', 'not_modified']),
    url: text,
    http_status: count.nullable(),
    fetched_at: maybeText,
    validated_at: maybeText,
    etag: maybeText,
    last_modified: maybeText,
  }),
  card: loose({
    name: text,
    description: maybeText,
    version: maybeText,
    /** As the card has it (not checked by the card parser): an object with `organization` and `url` by A2A. */
    provider: z.unknown(),
    protocol_versions: z.array(text),
    capabilities,
    supported_interfaces: z.array(loose({ protocol_binding: text, url: text, protocol_version: maybeText, tenant: maybeText })),
    interfaces_missing: z.boolean(),
    format: z.enum(['1.0', '0.3', '0.2']),
    declared_protocol_version: maybeText,
    default_input_modes: z.array(text),
    default_output_modes: z.array(text),
    skills: z.array(cardSkill),
  }),
  selected_interface: selectedInterface.nullable(),
  negotiation: loose({
    ok: z.boolean(),
    dialect: dialect.nullable(),
    supported_bindings: z.array(text),
    offered_bindings: z.array(text),
    error: reportedError.nullable(),
  }),
  /** Where the agent's credentials may go, and whether they would go to the selected interface. */
  origin_pinning: loose({
    configured: z.array(text),
    pinned_origins: z.array(text),
    interface_origin: maybeText,
    decision: z.enum(['send', 'withhold', 'refuse', 'none']),
  }),
  signature: signatureView,
  client_tls: clientTlsView.nullable(),
  security: inspectSecurity,
  card_warnings: z.array(cardWarning),
  raw_card: z.unknown(),
  extended_card: extendedCardView.optional(),
});
