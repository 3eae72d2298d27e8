/**
 * An agent's text rendered as Markdown with react-markdown, which builds React elements from the Markdown syntax tree
 * and never injects HTML: raw HTML in the text (a `<script>`, an `<img onerror>`) is shown as the literal text it is.
 * Nothing remote is fetched: images load only from inline `data:image/…` URLs (the page's CSP allows no other
 * origin); a remote image shows as a note with its address. Links are not followed (the window never navigates away
 * from the console): their text is shown with the address beside it, to copy. Control and bidi characters in the
 * text are shown as visible escapes (`\u202e`, `\x1b`), as everywhere in the window: react-markdown builds its elements
 * with React's own JSX runtime, so its text nodes are escaped here, before they become elements.
 */
import ReactMarkdown, { defaultUrlTransform, type Components, type UrlTransform } from 'react-markdown';
import { visibleBlock } from '../../../shared/visible-text';

/** Raster images inline in the answer itself; SVG is left out (it is a document, not a picture). */
const INLINE_IMAGE = /^data:image\/(png|jpe?g|gif|webp);base64,[a-z0-9+/=\s]*$/i;

const urlTransform: UrlTransform = (url, key, node) => (node.tagName === 'img' && key === 'src' && INLINE_IMAGE.test(url) ? url : defaultUrlTransform(url));

/** The part of a hast node this needs: text nodes hold `value`, elements `children`. */
interface HastNode {
  type: string;
  value?: unknown;
  children?: HastNode[];
}

/** A rehype plugin: every text node of the tree with its control and bidi characters as visible escapes. */
function visibleText() {
  return (tree: HastNode) => {
    // A loop over a stack, not recursion: an answer's nesting is the agent's to choose.
    const stack = [tree];
    for (let node = stack.pop(); node; node = stack.pop()) {
      if (node.type === 'text' && typeof node.value === 'string') node.value = visibleBlock(node.value);
      for (const child of node.children ?? []) stack.push(child);
    }
  };
}

const rehypePlugins = [visibleText];

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
      <ReactMarkdown urlTransform={urlTransform} components={components} rehypePlugins={rehypePlugins}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
