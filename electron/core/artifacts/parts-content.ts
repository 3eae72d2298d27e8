/**
 * What an A2A part becomes on disk: text as-is, raw bytes decoded from base64, data as pretty JSON, and url parts
 * as a manifest (the url is never dereferenced).
 */
export type PartKind = 'text' | 'bytes' | 'json' | 'url' | 'unknown';

export interface PartContent {
  kind: PartKind;
  bytes: Buffer;
  mediaType: string | null;
  filename: string | null;
  /** Extension used when the part itself has no usable media type. */
  defaultExtension: string;
}

export function partContent(part: Record<string, unknown>): PartContent {
  const mediaType = typeof part.mediaType === 'string' && part.mediaType ? part.mediaType : null;
  const filename = typeof part.filename === 'string' && part.filename ? part.filename : null;
  if (typeof part.text === 'string')
    return { kind: 'text', bytes: Buffer.from(part.text, 'utf8'), mediaType: mediaType ?? 'text/plain', filename, defaultExtension: '.txt' };
  if (typeof part.raw === 'string') return { kind: 'bytes', bytes: Buffer.from(part.raw, 'base64'), mediaType, filename, defaultExtension: '.bin' };
  if ('data' in part)
    return {
      kind: 'json',
      bytes: Buffer.from(`${JSON.stringify(part.data, null, 2)}\n`, 'utf8'),
      mediaType: 'application/json',
      filename,
      defaultExtension: '.json',
    };
  if (typeof part.url === 'string') {
    const manifest = {
      kind: 'url',
      url: part.url,
      media_type: mediaType,
      filename,
      note: 'missive does not download url parts; fetch it yourself if you trust the source',
    };
    return {
      kind: 'url',
      bytes: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8'),
      mediaType: 'application/json',
      filename,
      defaultExtension: '.url.json',
    };
  }
  return {
    kind: 'unknown',
    bytes: Buffer.from(`${JSON.stringify(part, null, 2)}\n`, 'utf8'),
    mediaType: 'application/json',
    filename,
    defaultExtension: '.part.json',
  };
}
