/** A2A service parameters: A2A-Version on every request, A2A-Extensions comma-joined, extra validated headers. */
import { usageError } from '../../../shared/errors.js';
import { HEADER_NAME, RESERVED_SERVICE_PARAMS } from '../config/schema.js';

export interface ServiceParameters {
  version: string;
  extensions: string[];
  extra: Record<string, string>;
}

export interface ServiceParamOverrides {
  protocolVersion?: string;
  extensions?: string[];
  /** `NAME=VALUE` strings from `--service-param`. */
  params?: string[];
}

export function parseServiceParam(text: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw usageError('invalid_service_param', `--service-param "${text}" is not NAME=VALUE`);
  const name = text.slice(0, eq).trim();
  const value = text.slice(eq + 1);
  if (!HEADER_NAME.test(name)) throw usageError('invalid_service_param', `--service-param name "${name}" is not a valid header name`);
  if (/[\r\n\0]/.test(value)) throw usageError('invalid_service_param', `--service-param ${name} value contains CR, LF or NUL`);
  const lower = name.toLowerCase();
  if (RESERVED_SERVICE_PARAMS.includes(lower)) {
    throw usageError('reserved_service_param', `${name} is set by missive`, 'Use --protocol-version or --a2a-extension instead.');
  }
  if (['authorization', 'proxy-authorization', 'cookie'].includes(lower)) {
    throw usageError('reserved_service_param', `${name} carries credentials`, 'Use --bearer-token-env, --header or an auth ref.');
  }
  return [name, value];
}

export function resolveServiceParameters(base: ServiceParameters, overrides: ServiceParamOverrides = {}): ServiceParameters {
  const version = overrides.protocolVersion ?? base.version;
  if (!/^\d+\.\d+$/.test(version)) throw usageError('invalid_protocol_version', `protocol version "${version}" must look like 1.0`);
  const extensions = [...base.extensions];
  for (const ext of overrides.extensions ?? []) {
    if (!ext || ext.includes(',') || /\s/.test(ext)) throw usageError('invalid_extension', `--a2a-extension "${ext}" must be one URI without commas`);
    if (!extensions.includes(ext)) extensions.push(ext);
  }
  const extra = { ...base.extra };
  for (const text of overrides.params ?? []) {
    const [name, value] = parseServiceParam(text);
    for (const key of Object.keys(extra)) if (key.toLowerCase() === name.toLowerCase()) delete extra[key];
    extra[name] = value;
  }
  return { version, extensions, extra };
}

export function serviceParameterHeaders(params: ServiceParameters): Record<string, string> {
  const headers: Record<string, string> = { ...params.extra, 'A2A-Version': params.version };
  if (params.extensions.length) headers['A2A-Extensions'] = params.extensions.join(',');
  return headers;
}

/** What persistence records next to request effects. */
export function serviceParameterMetadata(params: ServiceParameters): Record<string, unknown> {
  return {
    'a2a.protocol_version': params.version,
    'a2a.extensions': params.extensions,
    'a2a.service_parameters': params.extra,
  };
}
