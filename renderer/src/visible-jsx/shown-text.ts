/**
 * What the window shows of a JSX element's props: the text children of host elements (`<td>{card.name}</td>`) and
 * fragments, and the attributes a person reads or hears (`title`, `aria-label`, `alt`, `placeholder`), with control and
 * bidi characters as visible escapes (shared/visible-text.ts, the terminal's rules for a block of text: line breaks and
 * tabs stay, since HTML lays them out as white space). Form values (`value`, `defaultValue`) are left exact: what is
 * edited is what is sent. Components' own props are left alone; what they render goes through here in turn.
 */
import { Fragment } from 'react';
import { visibleBlock } from '../../../shared/visible-text';

const SHOWN_ATTRIBUTES = ['title', 'aria-label', 'aria-description', 'alt', 'placeholder'] as const;

function shownChildren(children: unknown): unknown {
  if (typeof children === 'string') return visibleBlock(children);
  if (!Array.isArray(children)) return children;
  let out: unknown[] | undefined;
  for (let i = 0; i < children.length; i++) {
    const safe = shownChildren(children[i]);
    if (safe !== children[i]) (out ??= children.slice())[i] = safe;
  }
  return out ?? children;
}

/** `props` with its shown text made visible-safe; the same object when nothing needed escaping. */
export function shownProps<P>(type: unknown, props: P): P {
  if ((typeof type !== 'string' && type !== Fragment) || typeof props !== 'object' || props === null) return props;
  const record = props as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  const children = shownChildren(record.children);
  if (children !== record.children) (out ??= { ...record }).children = children;
  if (typeof type === 'string') {
    for (const name of SHOWN_ATTRIBUTES) {
      const value = record[name];
      if (typeof value !== 'string') continue;
      const safe = visibleBlock(value);
      if (safe !== value) (out ??= { ...record })[name] = safe;
    }
  }
  return (out ?? props) as P;
}
