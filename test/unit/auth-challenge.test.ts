/** WWW-Authenticate parsing and the text of a 401/403 auth error: what a user reads when an agent refuses a call. */
import { describe, expect, it } from 'vitest';
import { authRejectedError, parseWwwAuthenticate } from '../../electron/core/a2a/auth-challenge.js';
import { securitySchemesOf } from '../../electron/core/a2a/security-schemes.js';
import { redactText } from '../../electron/core/security/redact.js';
import { fits, type CredentialOffer } from '../../electron/core/agents/inspect-security.js';

describe('parseWwwAuthenticate', () => {
  it('reads schemes and their parameters, several challenges, quoted commas and token68', () => {
    expect(parseWwwAuthenticate('Bearer realm="a2a"')).toEqual([{ scheme: 'Bearer', params: { realm: 'a2a' } }]);
    expect(parseWwwAuthenticate('Bearer realm="a, b", error="invalid_token", Basic realm=files')).toEqual([
      { scheme: 'Bearer', params: { realm: 'a, b', error: 'invalid_token' } },
      { scheme: 'Basic', params: { realm: 'files' } },
    ]);
    expect(parseWwwAuthenticate('Negotiate abc123==, Bearer')).toEqual([
      { scheme: 'Negotiate', params: {} },
      { scheme: 'Bearer', params: {} },
    ]);
    expect(parseWwwAuthenticate('Bearer realm = "spaced", error=invalid_token')).toEqual([
      { scheme: 'Bearer', params: { realm: 'spaced', error: 'invalid_token' } },
    ]);
    expect(parseWwwAuthenticate(undefined)).toEqual([]);
    expect(parseWwwAuthenticate('')).toEqual([]);
  });

  it('keeps outside text short and on one line, and stops after a few challenges', () => {
    const [challenge] = parseWwwAuthenticate(`Bearer realm="x\u0007\u001b[2J${'y'.repeat(400)}"`);
    expect(challenge!.params.realm!.length).toBeLessThanOrEqual(80);
    // eslint-disable-next-line no-control-regex -- the test looks for raw control characters in what a user sees
    expect(challenge!.params.realm).not.toMatch(/[\u0000-\u001f]/);
    expect(parseWwwAuthenticate(Array.from({ length: 50 }, (_, i) => `S${i}`).join(', '))).toHaveLength(8);
  });
});

describe('authRejectedError', () => {
  const declared = securitySchemesOf({ securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } } }).schemes;

  it('401: unauthorized, exit 77, the URL without its query, the challenge and the declared schemes', () => {
    const error = authRejectedError({
      status: 401,
      what: 'SendMessage',
      url: 'https://agent.example/a2a?key=secret',
      headers: { 'www-authenticate': 'Bearer realm="a2a"' },
      detail: 'Unauthorized',
      alias: 'prod',
      hint: { declared, sent: [] },
    });
    expect(error.code).toBe('missive::auth::unauthorized');
    expect(error.exitCode).toBe(77);
    expect(error.message).toBe(
      'SendMessage at https://agent.example/a2a answered HTTP 401 Unauthorized: Unauthorized (WWW-Authenticate: "Bearer" (realm "a2a"))',
    );
    expect(error.help).toContain('The agent asks for a "Bearer" token (realm "a2a")');
    expect(error.help).toContain('Its card declares key: API key in header X-API-Key');
    expect(error.help).toContain('missive agent set prod --auth-ref <name>');
  });

  it('suggests the auth ref an API-key card needs when the agent sends no challenge', () => {
    const error = authRejectedError({ status: 401, what: 'GetTask', url: 'http://127.0.0.1:1/', headers: {}, hint: { declared } });
    expect(error.help).toContain('missive auth add <name> --flow api_key --in header --key-name X-API-Key --env <VAR>');
  });

  it('suggests the flow an OAuth2 or OpenID Connect card needs, and a client certificate for mutual TLS', () => {
    const cards = securitySchemesOf({
      securitySchemes: {
        cc: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: 'https://idp.example/token', scopes: {} } } } },
        dc: {
          oauth2SecurityScheme: {
            flows: { deviceCode: { deviceAuthorizationUrl: 'https://idp.example/device', tokenUrl: 'https://idp.example/token', scopes: {} } },
          },
        },
        oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://idp.example/.well-known/openid-configuration' } },
        tls: { mtlsSecurityScheme: {} },
      },
    }).schemes;
    const helpFor = (name: string, challenge?: string) =>
      authRejectedError({
        status: 401,
        what: 'SendMessage',
        url: 'http://127.0.0.1:1/',
        headers: challenge ? { 'www-authenticate': challenge } : {},
        alias: 'a',
        hint: { declared: cards.filter((s) => s.name === name) },
      }).help;
    expect(helpFor('cc', 'Bearer')).toContain(
      'missive auth add <name> --flow oauth2_client_credentials --token-url https://idp.example/token --client-id <id> --env <VAR>',
    );
    expect(helpFor('dc')).toContain(
      '--flow oauth2_device_code --device-authorization-url https://idp.example/device --token-url https://idp.example/token --client-id <id>, then missive auth login a',
    );
    expect(helpFor('oidc')).toContain('--flow oauth2_client_credentials --issuer https://idp.example --client-id <id>');
    expect(helpFor('tls')).toContain(
      'No credentials were sent: the agent asks for a client certificate: missive agent set a --client-cert <file> --client-key <file>',
    );
  });

  it('403: forbidden, and names what was sent', () => {
    const error = authRejectedError({
      status: 403,
      what: 'CancelTask',
      url: 'http://127.0.0.1:1/',
      headers: {},
      hint: { sent: ['auth ref "prod"'], authRef: 'prod' },
    });
    expect(error.code).toBe('missive::auth::forbidden');
    expect(error.help).toContain('The agent refused the credentials sent (auth ref "prod") for this operation');
  });

  it('survives the output layer: redaction leaves the scheme names and the realm readable', () => {
    for (const challenge of ['Bearer realm="a2a", Basic realm="b"', 'Basic realm="files"', 'bearer', 'basic']) {
      const error = authRejectedError({
        status: 401,
        what: 'SendMessage',
        url: 'http://127.0.0.1:1/',
        headers: { 'www-authenticate': challenge },
        hint: {
          declared: securitySchemesOf({ securitySchemes: { b: { type: 'http', scheme: 'basic' }, t: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } })
            .schemes,
        },
      });
      expect(redactText(error.message)).toBe(error.message);
      expect(redactText(error.help!)).toBe(error.help);
    }
  });

  it('scrubs a known secret an agent echoes in its body', () => {
    const error = authRejectedError({
      status: 401,
      what: 'SendMessage',
      url: 'http://127.0.0.1:1/',
      headers: {},
      detail: 'bad token tok-123456789',
      secrets: ['tok-123456789'],
    });
    expect(error.message).not.toContain('tok-123456789');
  });
});

describe('securitySchemesOf', () => {
  it('reads the SDK typed shape, v1.0 JSON and v0.3 JSON alike', () => {
    const typed = securitySchemesOf({ securitySchemes: { b: { scheme: { $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer', bearerFormat: '' } } } } });
    const v1 = securitySchemesOf({ securitySchemes: { b: { httpAuthSecurityScheme: { scheme: 'Bearer' } } } });
    const v03 = securitySchemesOf({ securitySchemes: { b: { type: 'http', scheme: 'bearer' } }, security: [{ b: [] }] });
    for (const view of [typed, v1, v03]) expect(view.schemes[0]).toMatchObject({ name: 'b', type: 'http', http_scheme: 'bearer' });
    expect(v03.requirements).toEqual([{ schemes: [{ name: 'b', scopes: [] }] }]);
  });

  it('treats a malformed card as declaring nothing it cannot read', () => {
    expect(securitySchemesOf(null)).toEqual({ schemes: [], requirements: [] });
    expect(securitySchemesOf({ securitySchemes: 'x', securityRequirements: {} })).toEqual({ schemes: [], requirements: [] });
    expect(securitySchemesOf({ securitySchemes: { odd: { type: 'carrier-pigeon' } } }).schemes[0]).toMatchObject({ name: 'odd', type: 'unknown' });
  });
});

describe('fits', () => {
  const schemes = securitySchemesOf({
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer' },
      basic: { type: 'http', scheme: 'basic' },
      key: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      cookie: { type: 'apiKey', in: 'cookie', name: 'sid' },
      oauth: { type: 'oauth2', flows: {} },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://idp.example' },
      tls: { type: 'mutualTLS' },
    },
  }).schemes;
  const fitting = (offer: CredentialOffer) => schemes.filter((s) => fits(offer, s)).map((s) => s.name);

  it('matches each kind of credential to the schemes it satisfies', () => {
    expect(fitting({ source: 'auth ref "svc"', kind: 'oauth2_client_credentials', place: 'header', name: 'Authorization' })).toEqual([
      'bearer',
      'oauth',
      'oidc',
    ]);
    expect(fitting({ source: '--bearer-token-env', kind: 'bearer', place: 'header', name: 'Authorization' })).toEqual(['bearer', 'oauth', 'oidc']);
    expect(fitting({ source: 'auth ref "pw"', kind: 'basic', place: 'header', name: 'Authorization' })).toEqual(['basic']);
    expect(fitting({ source: '--header x-api-key', kind: 'header', place: 'header', name: 'x-api-key' })).toEqual(['key']);
    expect(fitting({ source: 'auth ref "c"', kind: 'api_key', place: 'cookie', name: 'sid' })).toEqual(['cookie']);
    expect(fitting({ source: 'auth ref "c"', kind: 'api_key', place: 'query', name: 'sid' })).toEqual([]);
    expect(fitting({ source: 'client certificate', kind: 'mtls', place: 'tls', name: null })).toEqual(['tls']);
  });
});
