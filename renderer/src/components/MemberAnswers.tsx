/**
 * A collective's members: a live progress line (done / running / failed as `collectives.member` events arrive), one
 * row per member with its answer's text as soon as it is known (a bcast's or barrier's read where it arrived, no
 * gather needed: member-answers-load.ts), and under each row, on "Show answer", what the member said: its error, its
 * text (and where the text came from), and its artifacts, read with `artifacts.show` and drawn by Compose's
 * ArtifactView (text, data as a JSON tree, files with Save).
 */
import { useEffect, useId, useState } from 'react';
import { call } from '../api';
import { useAction } from '../hooks';
import { ErrorBox, jsonAt, stateClass } from './common';
import { IdLink } from './IdLink';
import { ArtifactView } from './ArtifactView';
import { partsOf } from './answer-model';
import { progressOf, progressText, type MemberRow } from './collective-members';
import { useArrivedAnswers } from './member-answers-load';
import type { ChannelOutput } from '../../../shared/ipc/contract';
import '../collectives.css';

const SOURCE_LABEL = { message: 'its message', status: 'its task’s status message', artifact: 'its first text artifact' } as const;

/** The first characters of an answer, on one line, for its member's row (the whole text is under "Show answer"). */
const PREVIEW_CHARS = 160;
const previewOf = (text: string) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > PREVIEW_CHARS ? `${line.slice(0, PREVIEW_CHARS - 1)}…` : line;
};

export function MemberAnswers({ rows: given, running }: { rows: MemberRow[]; running: boolean }) {
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const base = useId();
  const arrived = useArrivedAnswers(given);
  const rows = arrived.rows;
  const slowest = Math.max(1, ...rows.map((r) => r.latency_ms ?? 0));
  if (!rows.length) return null;
  return (
    <div className="member-answers">
      <ErrorBox error={arrived.error} />
      <p className={running ? 'collective-progress running' : 'collective-progress'} role="status" data-testid="collective-progress">
        {running ? 'Running — ' : ''}
        {progressText(progressOf(rows))}
      </p>
      <table className="table members-table" data-testid="members-table">
        <thead>
          <tr>
            <th>Rank</th>
            <th>Member</th>
            <th>Status</th>
            <th>State</th>
            <th>Latency</th>
            <th>Answer</th>
          </tr>
        </thead>
        <tbody>
          {rows.flatMap((m) => {
            const key = `${m.rank}-${m.alias}`;
            const panel = `${base}-answer-${m.rank}`;
            const shown = open[key] === true;
            const row = (
              <tr key={key} data-testid="member-row" data-member={m.alias}>
                <td>{m.rank}</td>
                <td>{m.alias}</td>
                <td className={`member-status member-status-${m.status}`}>{m.status}</td>
                <td className={stateClass(m.state)}>{m.state ?? '-'}</td>
                <td>
                  {m.latency_ms != null ? (
                    <span className="bar-wrap">
                      <span className="bar" style={{ width: `${Math.max(2, (m.latency_ms / slowest) * 100)}%` }} /> {m.latency_ms} ms
                    </span>
                  ) : (
                    '-'
                  )}
                </td>
                <td className="member-answer-cell">
                  {m.answer?.text ? (
                    <span className="member-preview" data-testid="member-preview" title={previewOf(m.answer.text)}>
                      {previewOf(m.answer.text)}
                    </span>
                  ) : arrived.reading(m) ? (
                    <span className="muted member-preview">reading its answer…</span>
                  ) : null}
                  <button
                    type="button"
                    className="small secondary"
                    aria-expanded={shown}
                    aria-controls={panel}
                    aria-label={`${shown ? 'Hide' : 'Show'} answer of ${m.alias}`}
                    onClick={() => setOpen((o) => ({ ...o, [key]: !shown }))}
                  >
                    {shown ? 'Hide answer' : 'Show answer'}
                  </button>
                </td>
              </tr>
            );
            if (!shown) return [row];
            return [
              row,
              <tr key={`${key}-answer`} className="member-answer-row">
                <td colSpan={6} id={panel}>
                  <MemberAnswer member={m} reading={arrived.reading(m)} />
                </td>
              </tr>,
            ];
          })}
        </tbody>
      </table>
    </div>
  );
}

/** What the detail says when a member has no answer to show (yet). */
function noAnswerText(m: MemberRow, reading: boolean): string {
  if (m.error) return '';
  if (m.status === 'running' || m.status === 'pending') return 'No answer yet.';
  if (reading) return 'Reading its answer…';
  if (m.status === 'skipped') return 'Not sent: the run stopped before this member.';
  return 'No answer from this member.';
}

/** One member's error, text and artifacts. */
function MemberAnswer({ member: m, reading }: { member: MemberRow; reading: boolean }) {
  const a = m.answer;
  return (
    <div className="member-answer" data-testid="member-answer" data-member={m.alias}>
      {m.error ? (
        <div className="member-error" data-testid="member-error">
          <div>{m.error.message}</div>
          <div className="error-code">{m.error.code}</div>
          {m.error.help ? <div className="muted">{m.error.help}</div> : null}
        </div>
      ) : null}
      {m.task_id ? (
        <p className="muted small-text">
          {/* The whole id as the label: the link's accessible name ("task <id>, open in Tasks") contains what it shows. */}
          <IdLink kind="task" id={m.task_id} label={`task ${m.task_id}`} />
        </p>
      ) : null}
      {a?.text ? (
        <>
          <p className="muted small-text">From {a.text_source ? SOURCE_LABEL[a.text_source] : 'its answer'}:</p>
          <pre className="answer member-text" data-testid="member-text">
            {a.text}
          </pre>
        </>
      ) : null}
      {a && a.task_id && a.artifacts.length ? (
        <ul className="member-artifacts">
          {a.artifacts.map((art) => (
            <li key={art.artifact_id} data-testid="member-artifact">
              <MemberArtifact taskId={a.task_id!} artifact={art} />
            </li>
          ))}
        </ul>
      ) : null}
      {!a ? (
        <p className="muted">{noAnswerText(m, reading)}</p>
      ) : a.status === 'missing_task' ? (
        <p className="muted">No task or answer from this member in this context.</p>
      ) : a.status === 'empty_output' ? (
        <p className="muted">This member answered without text or artifacts.</p>
      ) : null}
    </div>
  );
}

type Artifact = ChannelOutput<'collectives.gather'>['members'][number]['artifacts'][number];

/** An artifact as the journal holds it, loaded when shown and drawn as Compose draws one (text, data tree, files with Save). */
function MemberArtifact({ taskId, artifact }: { taskId: string; artifact: Artifact }) {
  const load = useAction(() => call('artifacts.show', { taskId, artifactId: artifact.artifact_id }));
  const loadArtifact = load.run;
  useEffect(() => void loadArtifact(), [loadArtifact, taskId, artifact.artifact_id, artifact.version]);
  const content = load.data?.content;
  return (
    <>
      <ErrorBox error={load.error} />
      {content ? (
        <ArtifactView
          artifact={{ id: artifact.artifact_id, name: artifact.name, parts: partsOf(jsonAt(content, 'parts')), version: artifact.version, complete: true }}
          taskId={taskId}
          streaming={false}
        />
      ) : load.busy ? (
        <p className="muted">Loading {artifact.name ?? artifact.artifact_id}…</p>
      ) : null}
    </>
  );
}
