/**
 * An agent's text rendered as Markdown with react-markdown, which builds React elements from the Markdown syntax tree
 * and never injects HTML: raw HTML in the text (a `<script>`, an `<img onerror>`) is shown as the literal text it is.
 * Nothing remote is fetched: images load only from inline `data:image/…` URLs (the page's CSP allows no other
 * origin); a remote image shows as a note with its address. Links are not followed (the window never navigates away
 * from the console): their text is shown with the address beside it, to copy.
 */
import ReactMarkdown, { defaultUrlTransform, type Components, type UrlTransform } from 'react-markdown';

/** Raster images inline in the answer itself; SVG is left out (it is a document, not a picture). */
const INLINE_IMAGE = /^data:image\/(png|jpe?g|gif|webp);base64,[a-z0-9+/=\s]*$/i;

const urlTransform: UrlTransform = (url, key, node) => (node.tagName === 'img' && key === 'src' && INLINE_IMAGE.test(url) ? url : defaultUrlTransform(url));

const components: Components = {
  img: ({ src, alt }) =>
    typeof src === 'string' && INLINE_IMAGE.test(src) ? (
      <img className="md-image" src={src} alt={alt ?? ''} />
    ) : (
      <span className="md-blocked" data-testid="md-blocked-image" title="Remote images are not loaded">
        image not loaded{alt ? `: ${alt}` : ''} <span className="mono">{typeof src === 'string' && src ? src : '(no address)'}</span>
      </span>
    ),
  a: ({ href, children }) => (
    <span className="md-link">
      {children}
      {href && href !== String(children) ? <span className="mono muted"> ‹{href}›</span> : null}
    </span>
  ),
};

export function Markdown({ text, testId }: { text: string; testId?: string }) {
  return (
    <div className="markdown" data-testid={testId}>
      <ReactMarkdown urlTransform={urlTransform} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
