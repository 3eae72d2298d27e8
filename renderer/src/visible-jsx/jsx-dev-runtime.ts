/** The development build's JSX runtime (`vite` serve): React's, through `shownProps` as jsx-runtime.ts. */
import { jsxDEV as reactJsxDEV } from 'react/jsx-dev-runtime';
import { shownProps } from './shown-text';

export { Fragment } from 'react/jsx-dev-runtime';
export type { JSX } from 'react/jsx-dev-runtime';

export const jsxDEV: typeof reactJsxDEV = (type, props, key, isStatic, source, self) => reactJsxDEV(type, shownProps(type, props), key, isStatic, source, self);
