/**
 * A list with its selected item's detail: beside the list on a wide window (the detail pane sticks to the top while
 * the list scrolls), in a drawer over the list's right side on a narrow one (layout.css). `DetailHeading` is the
 * detail's heading: each time its `reveal` number goes up (a row picked, Inspect, a link or palette entry followed),
 * it is scrolled into view and takes the focus, so a result never lands off screen or leaves the focus behind.
 * `ListFilter` is the text box that narrows a list, and `matchesFilter` its rule: every typed word occurs in one of
 * the item's fields (case-insensitive).
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { Field } from './common';
import '../layout.css';

export function MasterDetail({
  children,
  detail,
  label,
  onClose,
  testId,
}: {
  children: ReactNode;
  /** The detail shown (null: none, the list takes the whole width). */
  detail: ReactNode | null;
  /** The detail pane's accessible name, e.g. "agent card". */
  label: string;
  /** Closes the detail (a Close button at the pane's top, or Escape inside it). */
  onClose?: () => void;
  testId?: string;
}) {
  return (
    <div className={detail ? 'master-detail has-detail' : 'master-detail'} data-testid={testId}>
      <div className="master">{children}</div>
      {detail ? (
        <section
          className="detail-pane"
          aria-label={label}
          data-testid="detail-pane"
          onKeyDown={(e) => {
            // Escape closes the detail (the drawer, on a narrow window), unless a field inside used it.
            if (e.key === 'Escape' && onClose && !e.defaultPrevented) onClose();
          }}
        >
          {onClose ? (
            <div className="detail-pane-tools">
              <button type="button" className="small secondary" onClick={onClose} aria-label={`Close the ${label}`}>
                Close
              </button>
            </div>
          ) : null}
          {detail}
        </section>
      ) : null}
    </div>
  );
}

/**
 * The detail's heading. `reveal` is a number that goes up with every request to show the item; on each new value
 * (also when the heading first appears after the item loaded) the heading is scrolled into view and focused.
 */
export function DetailHeading({ reveal, children, className, level = 3 }: { reveal: number; children: ReactNode; className?: string; level?: 3 | 4 }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const shown = useRef(0);
  useEffect(() => {
    const el = ref.current;
    if (!reveal || shown.current === reveal || !el) return;
    shown.current = reveal;
    // The picked row first: opening the detail narrows the list, so its rows grow and the row may have moved away.
    el.closest('.master-detail')?.querySelector('.master .selected, .master [aria-current="true"]')?.scrollIntoView?.({ block: 'nearest' });
    // Then the heading, unless it already shows (the pane sticks to the top; a drawer is always in view).
    const box = el.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) el.scrollIntoView?.({ block: 'nearest' });
    el.focus({ preventScroll: true });
  }, [reveal]);
  const Tag = level === 3 ? 'h3' : 'h4';
  return (
    <Tag ref={ref} tabIndex={-1} className={className ? `detail-heading ${className}` : 'detail-heading'}>
      {children}
    </Tag>
  );
}

/** Whether every word of `query` occurs in one of `fields` (case-insensitive); an empty query matches everything. */
export function matchesFilter(query: string, fields: ReadonlyArray<string | null | undefined>): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = fields
    .filter((f): f is string => !!f)
    .join('\n')
    .toLowerCase();
  return words.every((w) => haystack.includes(w));
}

/** A list's filter box, with how many items it shows of how many. */
export function ListFilter({
  name,
  value,
  onChange,
  placeholder,
  shown,
  total,
  label = 'Filter',
}: {
  name: string;
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  shown: number;
  total: number;
  label?: string;
}) {
  return (
    <div className="list-filter">
      <Field label={label}>
        <input name={name} type="search" value={value} onChange={(e) => onChange(e.target.value)} placeholder={placeholder} />
      </Field>
      <span className="muted small-text" role="status" data-testid={`${name}-count`}>
        {value.trim() ? `${shown} of ${total} shown` : `${total} in all`}
      </span>
    </div>
  );
}
