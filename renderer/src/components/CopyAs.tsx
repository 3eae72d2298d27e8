/**
 * "Copy as missive command" / "Copy as curl" buttons. Each produces its text on click and writes it to the clipboard;
 * when the clipboard is refused, the text appears in a read-only textarea, selected, ready for Ctrl+C. What happened
 * (copied, refused, or why curl cannot express the request, e.g. gRPC) is announced in an aria-live region.
 */
import { useEffect, useRef, useState } from 'react';
import { toReport } from '../hooks';
import type { CopyText } from './copy-text';

type Producer = () => CopyText | Promise<CopyText>;

interface Outcome {
  message: string;
  /** Shown in the fallback textarea when the clipboard refused it. */
  fallback: string | null;
}

export function CopyAs({ label, command, curl, testId }: { label: string; command?: Producer; curl?: Producer; testId?: string }) {
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const attempt = useRef(0);
  useEffect(() => {
    if (outcome?.fallback && area.current) {
      area.current.focus();
      area.current.select();
    }
  }, [outcome]);

  const copy = async (what: string, produce: Producer) => {
    const id = ++attempt.current;
    setBusy(true);
    let next: Outcome;
    try {
      const { text, note } = await produce();
      if (text === null) {
        next = { message: note ?? `${what} cannot express this request.`, fallback: null };
      } else {
        const noted = note ? ` ${note}` : '';
        try {
          if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
          await navigator.clipboard.writeText(text);
          next = { message: `Copied ${label} as ${what}.${noted}`, fallback: null };
        } catch {
          next = { message: `The clipboard was refused: the ${what} is selected below, press Ctrl+C to copy it.${noted}`, fallback: text };
        }
      }
    } catch (e) {
      const report = toReport(e);
      next = { message: `Could not build the ${what}: ${report.code} ${report.message}`, fallback: null };
    }
    if (id !== attempt.current) return;
    setOutcome(next);
    setBusy(false);
  };

  return (
    <div className="copy-as" data-testid={testId ?? 'copy-as'}>
      <div className="copy-buttons">
        {command ? (
          <button
            type="button"
            className="secondary"
            disabled={busy}
            title={`Copy ${label} as a missive command line`}
            onClick={() => void copy('missive command', command)}
          >
            Copy as missive command
          </button>
        ) : null}
        {curl ? (
          <button
            type="button"
            className="secondary"
            disabled={busy}
            title={`Copy ${label} as a curl command line`}
            onClick={() => void copy('curl command', curl)}
          >
            Copy as curl
          </button>
        ) : null}
      </div>
      <div className="copy-status" role="status" aria-live="polite" data-testid="copy-status">
        {outcome?.message ?? ''}
      </div>
      {outcome?.fallback ? (
        <label className="field copy-fallback">
          <span>Text to copy</span>
          <textarea ref={area} readOnly rows={Math.min(12, outcome.fallback.split('\n').length + 1)} value={outcome.fallback} data-testid="copy-fallback" />
        </label>
      ) : null}
    </div>
  );
}
