/**
 * The journal as a virtual list whose rows expand: only the rows in view (plus overscan) are in the DOM, a row is a
 * button that opens a fixed-height panel under it with the event's details, and while the list is scrolled to the
 * bottom it follows new rows (the live tail). Rows must be sorted by sequence (oldest first).
 */
import { useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';

export interface ListedEvent {
  sequence: number;
}

const ROW = 28;
const PANEL = 280;
const OVERSCAN = 8;

/** Index of the row with `sequence` in rows sorted by sequence, or -1. */
function indexOfSequence(rows: readonly ListedEvent[], sequence: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = rows[mid]!.sequence;
    if (s === sequence) return mid;
    if (s < sequence) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** The row index at height `y`, given the sorted indices of the expanded rows. */
function indexAt(y: number, expanded: readonly number[]): number {
  let before = 0;
  for (const e of expanded) {
    const top = e * ROW + before * PANEL;
    if (y < top) break;
    if (y < top + ROW + PANEL) return e;
    before++;
  }
  return Math.floor((y - before * PANEL) / ROW);
}

export function EventList<T extends ListedEvent>({
  rows,
  expanded,
  onToggle,
  renderRow,
  renderDetail,
  renderAside,
  testId,
}: {
  rows: readonly T[];
  expanded: ReadonlySet<number>;
  onToggle: (sequence: number) => void;
  renderRow: (row: T) => ReactNode;
  renderDetail: (row: T) => ReactNode;
  /** What the row shows beside its toggle, outside it (links: a button cannot hold another). */
  renderAside?: (row: T) => ReactNode;
  testId?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(480);
  /** Whether the list was scrolled to its end before the last change: then it follows new rows. */
  const following = useRef(true);
  const [atEnd, setAtEnd] = useState(true);

  const open = useMemo(
    () =>
      [...expanded]
        .map((s) => indexOfSequence(rows, s))
        .filter((i) => i >= 0)
        .sort((a, b) => a - b),
    [expanded, rows],
  );
  const total = rows.length * ROW + open.length * PANEL;
  const offsetOf = (i: number) => i * ROW + open.filter((e) => e < i).length * PANEL;

  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => setHeight(el.clientHeight || 480);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  // New rows while following: stay at the end.
  useLayoutEffect(() => {
    const el = ref.current;
    if (el && following.current) {
      el.scrollTop = el.scrollHeight;
      setTop(el.scrollTop);
    }
  }, [rows.length]);

  const first = Math.max(0, indexAt(top, open) - OVERSCAN);
  const last = Math.min(rows.length, indexAt(top + height, open) + OVERSCAN + 1);
  const items = [];
  for (let i = first; i < last; i++) {
    const row = rows[i]!;
    const isOpen = expanded.has(row.sequence);
    const toggle = (
      <button type="button" className="event-row" aria-expanded={isOpen} onClick={() => onToggle(row.sequence)} data-sequence={row.sequence}>
        <span className="event-chevron" aria-hidden="true">
          {isOpen ? '▾' : '▸'}
        </span>
        {renderRow(row)}
      </button>
    );
    items.push(
      <div key={row.sequence} className={isOpen ? 'event-item open' : 'event-item'} style={{ top: offsetOf(i), height: ROW + (isOpen ? PANEL : 0) }}>
        {renderAside ? (
          <div className="event-line">
            {toggle}
            {renderAside(row)}
          </div>
        ) : (
          toggle
        )}
        {isOpen ? (
          <div className="event-detail" style={{ height: PANEL }} data-testid="event-detail">
            {renderDetail(row)}
          </div>
        ) : null}
      </div>,
    );
  }

  return (
    <div className="event-list-wrap">
      <div
        ref={ref}
        className="vlist event-list"
        data-testid={testId}
        onScroll={(e) => {
          const el = e.currentTarget;
          setTop(el.scrollTop);
          const end = el.scrollTop + el.clientHeight >= el.scrollHeight - ROW;
          following.current = end;
          setAtEnd(end);
        }}
      >
        <div style={{ height: total, position: 'relative' }}>{items}</div>
      </div>
      {!atEnd && rows.length > 0 ? (
        <button
          type="button"
          className="jump-newest"
          onClick={() => {
            const el = ref.current;
            if (el) el.scrollTop = el.scrollHeight;
          }}
        >
          ↓ Newest
        </button>
      ) : null}
    </div>
  );
}
