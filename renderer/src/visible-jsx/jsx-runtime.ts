/**
 * The renderer's JSX runtime (renderer/tsconfig.json and vite.config.ts name it as `jsxImportSource`): React's own, with
 * every text an element shows passed through `shownProps` first. So an agent's name, a card field, an answer, a file
 * name or an error message with a right-to-left override, ESC, BEL or NUL in it is shown as `\u202e`, `\x1b`, `\x07`,
 * `\x00` in every view, without each view having to remember it (react-markdown's output: Markdown.tsx).
 */
import { jsx as reactJsx, jsxs as reactJsxs } from 'react/jsx-runtime';
import { shownProps } from './shown-text';

export { Fragment } from 'react/jsx-runtime';
export type { JSX } from 'react/jsx-runtime';

export const jsx: typeof reactJsx = (type, props, key) => reactJsx(type, shownProps(type, props), key);
export const jsxs: typeof reactJsxs = (type, props, key) => reactJsxs(type, shownProps(type, props), key);
