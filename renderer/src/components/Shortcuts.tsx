/**
 * The keyboard shortcuts, listed in the app: a modal dialog (`?`, or the sidebar's "Shortcuts" button) built on
 * <dialog>, so focus stays in it and Escape closes it.
 */
import { useEffect, useRef } from 'react';
import { VIEWS } from '../store';

/** Every shortcut the window knows, in the words the dialog shows. */
export const SHORTCUTS: ReadonlyArray<readonly [keys: string, what: string]> = [
  ['Ctrl+K (⌘K)', 'Command palette: views, agents, actions'],
  ['Ctrl+N (⌘N)', 'New message in Compose (a new conversation; a browser may keep it for a new window)'],
  ['?', 'This list of shortcuts'],
  ...VIEWS.map(([, label], i) => [`Ctrl+${i + 1} (⌘${i + 1})`, `Go to ${label}`] as const),
  ['Escape', 'Close the palette or this dialog'],
  ['↑ ↓, Enter', 'Pick and run a palette entry'],
  ['← → Home End', 'Move between tabs'],
];

export function ShortcutsDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog ref={dialog} className="modal shortcuts" aria-labelledby="shortcuts-title" onClose={onClose} data-testid="shortcuts">
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table className="table">
        <thead>
          <tr>
            <th>Keys</th>
            <th>Does</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <td>
                <kbd>{keys}</kbd>
              </td>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="row">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
