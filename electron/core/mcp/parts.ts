/**
 * A2A parts as MCP content, the one rule every tool and resource uses: a text part is text; a data part is its JSON as
 * text; a file part with bytes is an embedded resource (blob) when small, a file part with a URL is a resource link.
 * An artifact too large to carry inline becomes one resource link to `missive://artifact/<task>/<artifact>`, which the
 * client reads when it wants it (resources/read). Runs of text pieces of one artifact are one text (artifact-text.ts).
 */
import type { CallToolResult, EmbeddedResource, ResourceLink, TextContent } from '@modelcontextprotocol/sdk/types.js';
import { joinArtifactParts, type ArtifactPart } from '../../../shared/artifact-text.js';

export type ContentBlock = CallToolResult['content'][number];

/** The most text (characters) of one artifact carried inline in a tool result; more becomes a resource link. */
export const MAX_INLINE_TEXT = 64 * 1024;
/** The most bytes of one file part embedded (base64) in a tool result; a larger file becomes a resource link. */
export const MAX_INLINE_BYTES = 256 * 1024;

export const artifactUri = (taskId: string, artifactId: string): string => `missive://artifact/${encodeURIComponent(taskId)}/${encodeURIComponent(artifactId)}`;

/** `missive://artifact/<task>/<artifact>` → its ids, or null for any other URI. */
export function parseArtifactUri(uri: string): { taskId: string; artifactId: string } | null {
  const match = /^missive:\/\/artifact\/([^/]+)\/([^/]+)$/.exec(uri);
  if (!match) return null;
  try {
    return { taskId: decodeURIComponent(match[1]!), artifactId: decodeURIComponent(match[2]!) };
  } catch {
    return null;
  }
}

const text = (value: string): TextContent => ({ type: 'text', text: value });

/** The media type a part declares (1.0 `mediaType`, 0.3 `file.mimeType`), if any. */
function mediaType(part: ArtifactPart): string | undefined {
  const file = part.file as Record<string, unknown> | undefined;
  const declared = part.mediaType ?? file?.mimeType;
  return typeof declared === 'string' && declared ? declared : undefined;
}

function fileName(part: ArtifactPart): string | undefined {
  const file = part.file as Record<string, unknown> | undefined;
  const name = part.filename ?? file?.name;
  return typeof name === 'string' && name ? name : undefined;
}

/** A file part's base64 bytes (1.0 `raw`, 0.3 `file.bytes`) or URL (1.0 `url`, 0.3 `file.uri`). */
function fileOf(part: ArtifactPart): { bytes?: string; url?: string } | null {
  const file = part.file as Record<string, unknown> | undefined;
  const bytes = typeof part.raw === 'string' ? part.raw : typeof file?.bytes === 'string' ? file.bytes : undefined;
  const url = typeof part.url === 'string' ? part.url : typeof file?.uri === 'string' ? file.uri : undefined;
  return bytes !== undefined || url !== undefined ? { bytes, url } : null;
}

/** The size in bytes of base64 text. */
const base64Bytes = (b64: string): number => Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);

/** One part as a content block; `uri` names the artifact it belongs to (the embedded resource's URI). */
export function partContent(part: ArtifactPart, uri: string): ContentBlock {
  const file = fileOf(part);
  if (file?.bytes !== undefined) {
    const resource: EmbeddedResource = { type: 'resource', resource: { uri, blob: file.bytes, ...(mediaType(part) ? { mimeType: mediaType(part) } : {}) } };
    return resource;
  }
  if (file?.url !== undefined) {
    const link: ResourceLink = {
      type: 'resource_link',
      uri: file.url,
      name: fileName(part) ?? file.url,
      ...(mediaType(part) ? { mimeType: mediaType(part) } : {}),
    };
    return link;
  }
  if (part.data !== undefined) return text(JSON.stringify(part.data, null, 2));
  if (typeof part.text === 'string') return text(part.text);
  return text(JSON.stringify(part));
}

/** How big an artifact's inline content would be: text characters and embedded bytes. */
function inlineSize(parts: readonly ArtifactPart[]): { chars: number; bytes: number } {
  let chars = 0;
  let bytes = 0;
  for (const part of parts) {
    const file = fileOf(part);
    if (file?.bytes !== undefined) bytes += base64Bytes(file.bytes);
    else if (part.data !== undefined) chars += JSON.stringify(part.data).length;
    else if (typeof part.text === 'string') chars += part.text.length;
  }
  return { chars, bytes };
}

export interface ArtifactLike {
  artifactId?: string;
  artifact_id?: string;
  name?: string;
  parts?: unknown;
}

/**
 * One artifact of a task as content: its parts inline when they fit (MAX_INLINE_TEXT, MAX_INLINE_BYTES), else one
 * resource link to the whole artifact, with its name and size, for the client to read when it wants it.
 */
export function artifactContent(taskId: string, artifact: ArtifactLike): ContentBlock[] {
  const id = artifact.artifactId ?? artifact.artifact_id ?? 'artifact';
  const uri = artifactUri(taskId, id);
  const parts = joinArtifactParts(artifact.parts);
  const size = inlineSize(parts);
  if (size.chars > MAX_INLINE_TEXT || size.bytes > MAX_INLINE_BYTES) {
    const link: ResourceLink = {
      type: 'resource_link',
      uri,
      name: artifact.name || id,
      description: `artifact ${id} of task ${taskId}: ${size.chars} characters of text and ${size.bytes} bytes of files, too large to inline; read this resource for it`,
    };
    return [link];
  }
  return parts.map((part) => partContent(part, uri));
}

/** The contents of `missive://artifact/…` for resources/read: one entry per part, text or blob. */
export function artifactResourceContents(uri: string, parts: unknown): Array<{ uri: string; mimeType?: string; text?: string; blob?: string }> {
  return joinArtifactParts(parts).map((part) => {
    const file = fileOf(part);
    const mime = mediaType(part);
    if (file?.bytes !== undefined) return { uri, blob: file.bytes, ...(mime ? { mimeType: mime } : {}) };
    if (file?.url !== undefined) return { uri, text: file.url, mimeType: 'text/uri-list' };
    if (part.data !== undefined) return { uri, text: JSON.stringify(part.data, null, 2), mimeType: 'application/json' };
    return { uri, text: typeof part.text === 'string' ? part.text : JSON.stringify(part), ...(mime ? { mimeType: mime } : {}) };
  });
}
