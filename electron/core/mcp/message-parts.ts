/**
 * send_message's parts: what an MCP client may put in a message (text, JSON data, a file's bytes in base64, a file's
 * URL) and the A2A 1.0 parts built from them, handed to the core's send as captured parts (messaging/parts.ts checks
 * them against qos.max_request_bytes). There is no local path input on purpose: an AI client must not make missive
 * read the host's files and send them away, so a file comes as bytes the client already holds, or as an http(s) URL.
 */
import { z } from 'zod';
import { usageError } from '../../../shared/errors.js';
import { partBytes, type CapturedParts } from '../messaging/parts.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const name = z.string().min(1).max(255).describe('The file name the agent sees (e.g. "report.pdf").');
const mediaType = z
  .string()
  .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a media type such as text/plain')
  .describe('The media type of the file (e.g. "application/pdf").');

export const partInput = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text').describe('A text part.'), text: z.string().describe('The text.') }),
  z.strictObject({ type: z.literal('data').describe('A structured data part.'), data: z.unknown().describe('Any JSON value, sent as an A2A data part.') }),
  z.strictObject({
    type: z.literal('file').describe('A file sent inline.'),
    bytes_base64: z.string().regex(BASE64, 'must be standard base64').describe("The file's content, base64-encoded."),
    name: name.optional(),
    media_type: mediaType.optional(),
  }),
  z.strictObject({
    type: z.literal('file_url').describe('A file the agent fetches itself.'),
    url: z
      .string()
      .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'must be an http:// or https:// URL')
      .describe('An http(s) URL of the file (local paths and file:// URLs are refused).'),
    name: name.optional(),
    media_type: mediaType.optional(),
  }),
]);

export type PartInput = z.output<typeof partInput>;

function a2aPart(part: PartInput): Record<string, unknown> {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'data':
      return { data: part.data ?? null, mediaType: 'application/json' };
    case 'file':
      return { raw: part.bytes_base64, ...(part.name ? { filename: part.name } : {}), mediaType: part.media_type ?? 'application/octet-stream' };
    case 'file_url':
      return { url: part.url, ...(part.name ? { filename: part.name } : {}), ...(part.media_type ? { mediaType: part.media_type } : {}) };
  }
}

/** The message's A2A parts: the text first (unless empty beside other parts), then each part in order. */
export function messageParts(text: string, parts: readonly PartInput[] = []): CapturedParts {
  if (text.trim() === '' && parts.length === 0)
    throw usageError('empty_message', 'nothing to send: text is empty and there are no parts', 'Give the message in text.');
  const built = [...(text !== '' || parts.length === 0 ? [{ text }] : []), ...parts.map(a2aPart)];
  return { parts: built, bytes: built.reduce((sum, part) => sum + partBytes(part), 0) };
}
