/**
 * One POST to an OAuth2 endpoint (token or device authorization): a form body, the client authenticated per RFC 6749
 * §2.3.1 (HTTP Basic with the form-encoded id and secret; a public client sends only client_id in the body). The
 * answer is the JSON object or the endpoint's OAuth2 error (`error`, `error_description`). Never follows a redirect.
 */
import { authError } from '../../../../shared/errors.js';
import { httpRequest, tryJson } from '../../a2a/http.js';
import { oneLine } from '../../a2a/remote-text.js';
import { redactText, redactUrl } from '../../security/redact.js';
import type { OAuthContext } from './context.js';

export interface OAuthClient {
  id: string;
  /** The client secret; null for a public client (device code without a secret). */
  secret: string | null;
}

export type EndpointAnswer = { ok: true; body: Record<string, unknown> } | { ok: false; status: number; error: string; description: string | null };

const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');

/** POSTs `form` to `url` with the client's authentication; secrets are scrubbed from every message. */
export async function postForm(url: string, form: Record<string, string>, client: OAuthClient, ctx: OAuthContext, secrets: string[]): Promise<EndpointAnswer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
  const fields = { ...form };
  if (client.secret) headers.Authorization = `Basic ${Buffer.from(`${formEncode(client.id)}:${formEncode(client.secret)}`).toString('base64')}`;
  else fields.client_id = client.id;
  const scrub = [...secrets, ...(client.secret ? [client.secret] : [])];
  const res = await httpRequest({
    url,
    method: 'POST',
    headers,
    body: new URLSearchParams(fields).toString(),
    timeoutMs: ctx.timeoutMs,
    dispatcher: ctx.dispatcher,
    maxResponseBytes: 1024 * 1024,
    secrets: scrub,
  });
  const json = tryJson(res.body, `the answer of ${redactUrl(url)}`) as Record<string, unknown> | undefined;
  if (res.status >= 200 && res.status < 300 && json && typeof json === 'object' && !Array.isArray(json)) return { ok: true, body: json };
  const error = json && typeof json.error === 'string' ? json.error : `http_${res.status}`;
  const description = json && typeof json.error_description === 'string' ? redactText(oneLine(json.error_description, 200), scrub) : null;
  return { ok: false, status: res.status, error: redactText(oneLine(error, 80), scrub), description };
}

/** The endpoint's refusal as an auth error (exit 77) naming what to check next. */
export function endpointRefused(refName: string, what: string, url: string, answer: Extract<EndpointAnswer, { ok: false }>): never {
  const hint: Record<string, string> = {
    invalid_client: `Check client_id of [auth_refs.${refName}] and its client secret (missive auth set-secret ${refName}, or its env var).`,
    unauthorized_client: `The client of auth ref "${refName}" may not use this grant; check the client's settings at the identity provider.`,
    invalid_scope: `Check scopes in [auth_refs.${refName}].`,
    invalid_grant: `Log in again: missive auth login ${refName}`,
  };
  throw authError(
    'token_endpoint_refused',
    `the ${what} at ${redactUrl(url)} refused auth ref "${refName}": ${answer.error}${answer.description ? ` (${answer.description})` : ''} (HTTP ${answer.status})`,
    hint[answer.error] ?? `Check the settings of [auth_refs.${refName}]; show them with: missive auth status ${refName}`,
  );
}
