/** A fixed-row-height virtual list: only the visible rows (plus overscan) are in the DOM, so 100,000 rows scroll smoothly. */
import { useRef, useState, type ReactNode } from 'react';

export function VirtualList<T>({
  items,
  rowHeight,
  height,
  render,
  testId,
}: {
  items: T[];
  rowHeight: number;
  height: number;
  render: (item: T, index: number) => ReactNode;
  testId?: string;
}) {
  const [top, setTop] = useState(0);
  const ref = useRef<HTMLDivElement>(null);
  const overscan = 10;
  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((top + height) / rowHeight) + overscan);
  const rows = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div key={i} className="vrow" style={{ position: 'absolute', top: i * rowHeight, height: rowHeight, left: 0, right: 0 }}>
        {render(items[i]!, i)}
      </div>,
    );
  }
  return (
    <div
      ref={ref}
      className="vlist"
      data-testid={testId}
      style={{ height, overflowY: 'auto', position: 'relative' }}
      onScroll={(e) => setTop(e.currentTarget.scrollTop)}
    >
      <div style={{ height: items.length * rowHeight, position: 'relative' }}>{rows}</div>
    </div>
  );
}
