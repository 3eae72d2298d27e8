/**
 * Text that came from a remote peer (an HTTP error body, a JSON-RPC error message, a gRPC status detail) is shown as
 * one short line: an HTML page is reduced to its title (or its text), whitespace and control characters collapse to
 * single spaces, and anything long is cut. A multi-line 404 page never reaches a terminal or the journal whole.
 */

const MAX = 160;

const looksLikeHtml = (text: string) => /^\s*<(?:!doctype|html|head|body|\?xml)/i.test(text) || /<\/(?:html|body|head|title|h1|p|div)>/i.test(text);

function htmlText(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const text = title && title.trim() ? title : html.replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ');
  return text
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

export function oneLine(text: string | null | undefined, max = MAX): string {
  if (!text) return '';
  const plain = looksLikeHtml(text) ? htmlText(text) : text;
  // eslint-disable-next-line no-control-regex
  const flat = plain.replace(/[\s\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
}
