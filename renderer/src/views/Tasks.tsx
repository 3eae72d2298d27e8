import { useState } from 'react';
import { call } from '../api';
import { useAction, useLoad } from '../hooks';
import { Empty, ErrorBox, Field, JsonTree, stateClass } from '../components/common';

export function TasksView() {
  const [status, setStatus] = useState('');
  const [agent, setAgent] = useState('');
  const list = useLoad(() => call('tasks.list', { ...(status ? { status } : {}), ...(agent ? { agent } : {}), pageSize: 200 }), [status, agent]);
  const detail = useAction((taskId: string, remote?: boolean) => call('tasks.get', { taskId, remote: remote === true }));
  const cancel = useAction(async (taskId: string) => {
    await call('tasks.cancel', { taskId });
    return detail.run(taskId);
  });
  const wait = useAction(async (taskId: string) => {
    const waited = await call('tasks.wait', { taskId });
    await detail.run(taskId);
    return waited;
  });
  const [dir, setDir] = useState('');
  const exported = useAction((taskId: string) => call('artifacts.export', { taskId, outputDir: dir, force: false }));
  const tasks = list.data?.tasks ?? [];
  const d = detail.data as any;
  return (
    <section className="view" data-testid="view-tasks">
      <h2>Tasks</h2>
      <div className="row">
        <Field label="Status">
          <select name="status" value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">any</option>
            {['submitted', 'working', 'input_required', 'completed', 'failed', 'cancelled'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
        <Field label="Agent">
          <input name="task-agent" value={agent} onChange={(e) => setAgent(e.target.value)} placeholder="any" />
        </Field>
        <button onClick={() => void list.run()}>Refresh</button>
      </div>
      <ErrorBox error={list.error} />
      {tasks.length === 0 ? (
        <Empty title="No tasks in the journal">Send a message to an agent that answers with a task, or run a collective.</Empty>
      ) : (
        <table className="table" data-testid="tasks-table">
          <tbody>
            {tasks.map((t: any) => (
              <tr key={t.task_id} onClick={() => void detail.run(t.task_id)} className="clickable">
                <td className="mono">{t.task_id}</td>
                <td>{t.agent_alias}</td>
                <td className={stateClass(t.state)}>{t.state}</td>
                <td className="muted">{t.updated_at}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorBox error={detail.error ?? cancel.error} />
      {d ? (
        <div className="card" data-testid="task-detail">
          <h3 className="mono">{d.task.task_id}</h3>
          <p>
            <span className={stateClass(d.task.state)}>{d.task.state}</span> · {d.task.agent_alias} · context <span className="mono">{d.task.context_id}</span>
          </p>
          <div className="row">
            <button onClick={() => void detail.run(d.task.task_id, true)}>Refresh (GetTask)</button>
            <button onClick={() => void wait.run(d.task.task_id)} disabled={wait.busy}>
              Wait
            </button>
            <button onClick={() => void cancel.run(d.task.task_id)}>Cancel</button>
          </div>
          {wait.data ? <p data-testid="wait-outcome">outcome: {wait.data.outcome}</p> : null}
          <ErrorBox error={wait.error} />
          <h4>Artifacts</h4>
          {d.artifacts.length === 0 ? <p className="muted">none</p> : null}
          <ul>
            {d.artifacts.map((a: any) => (
              <li key={a.artifact_id}>
                {a.artifact_id} {a.name ? `(${a.name})` : ''} v{a.version} · {a.kind}
              </li>
            ))}
          </ul>
          {d.artifacts.length ? (
            <div className="row">
              <Field label="Export to directory">
                <input name="export-dir" value={dir} onChange={(e) => setDir(e.target.value)} placeholder="/path/to/dir" />
              </Field>
              <button
                type="button"
                onClick={async () => {
                  const picked = await call('dialogs.chooseDirectory', { title: 'Export artifacts to…' });
                  if (picked.path) setDir(picked.path);
                }}
              >
                Choose…
              </button>
              <button onClick={() => void exported.run(d.task.task_id)} disabled={!dir} data-testid="export">
                Export artifacts
              </button>
            </div>
          ) : null}
          <ErrorBox error={exported.error} />
          {exported.data ? (
            <p data-testid="exported">
              exported {exported.data.files.length} file(s) to {exported.data.directory}: {exported.data.files.map((f) => f.file).join(', ')}
            </p>
          ) : null}
          <JsonTree value={d} label="task" />
        </div>
      ) : null}
    </section>
  );
}
