/**
 * The Tasks view: the journal's tasks (filter by status and agent), each row a keyboard-reachable button that opens
 * the task's detail, its last change in local time with relative age, and Wait / Cancel on every task that has not
 * ended. The list reloads when the journal records task events (live tail) while the view is shown, and the open
 * detail with it. A state that is not final is what the journal last heard ("last known"): opening such a task asks
 * the agent (GetTask), so a task that finished since is shown finished. A task id link elsewhere opens it here. The
 * detail sits beside the list (a drawer on a narrow window), its heading focused; a filter narrows the loaded list.
 */
import { useEffect, useRef, useState } from 'react';
import { call, subscribe } from '../api';
import { toReport, useAction, useLoad } from '../hooks';
import { Empty, ErrorBox, Field, JsonTree, stateClass } from '../components/common';
import { Time } from '../components/Time';
import { useNavigationTarget, useViewActive } from '../store';
import { IdLink } from '../components/IdLink';
import { DetailHeading, ListFilter, MasterDetail, matchesFilter } from '../components/MasterDetail';
import { FollowedTask } from '../components/FollowedTask';
import type { FollowView } from '../components/use-followed-task';
import type { ChannelOutput, IpcError } from '../../../shared/ipc/contract';
import { isTerminalTaskState, SELECTABLE_TASK_STATES } from '../../../shared/task-states';

type RowAction = { kind: 'wait' | 'cancel'; busy: boolean; outcome?: string; error?: IpcError };

export function TasksView() {
  const visible = useViewActive();
  const [status, setStatus] = useState('');
  const [agent, setAgent] = useState('');
  const list = useLoad(
    () => call('tasks.list', { ...(status ? { status } : {}), ...(agent.trim() ? { agent: agent.trim() } : {}), pageSize: 200 }),
    [status, agent],
  );
  const detail = useAction(async (taskId: string, ask: 'local' | 'remote' | 'auto' = 'auto'): Promise<Detail> => {
    const local = ask === 'remote' ? null : await call('tasks.get', { taskId });
    // A state that is not final may be stale (the agent went on without telling the journal): ask the agent.
    if (local && (ask === 'local' || isTerminalTaskState(local.task.state))) return { view: local, checkError: null };
    try {
      return { view: await call('tasks.get', { taskId, remote: true }), checkError: null };
    } catch (e) {
      if (!local) throw e;
      return { view: local, checkError: toReport(e) };
    }
  });
  const [selected, setSelected] = useState<string | null>(null);
  /** Goes up with every open: the detail's heading then comes into view and takes the focus. */
  const [reveal, setReveal] = useState(0);
  const [filter, setFilter] = useState('');
  const open = (taskId: string) => {
    setSelected(taskId);
    setReveal((n) => n + 1);
    void detail.run(taskId);
  };
  // A task id link followed elsewhere opens that task here.
  const target = useNavigationTarget('task');
  useEffect(() => {
    if (target) open(target.id);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- open once per navigation target; open is a fresh closure each render
  }, [target]);
  // The open detail follows the list: when the list reloads (live tail, Wait, Cancel), so does the detail.
  useEffect(() => {
    // (Not while a run is in flight: it may be the agent being asked, which a journal read must not supersede.)
    if (selected && list.data && !detail.busy) void detail.run(selected, 'local');
    // eslint-disable-next-line react-hooks/exhaustive-deps -- follow list reloads only; a change of selection or busy must not refetch
  }, [list.data]);
  // The open task as followed (FollowedTask): when it changes, the list reloads, and the detail with it.
  const [followed, setFollowed] = useState<FollowView | null>(null);
  const onFollowed = (v: FollowView) => {
    setFollowed(v);
    const shown = detail.data?.view.task;
    if (shown?.task_id === v.task.task_id && (shown.state !== v.task.state || shown.updated_at !== v.task.updated_at)) void list.run();
  };
  // Wait and Cancel from a row: each row keeps its own progress and outcome.
  const [rowActions, setRowActions] = useState<Record<string, RowAction>>({});
  const runRow = async (taskId: string, kind: RowAction['kind']) => {
    setRowActions((r) => ({ ...r, [taskId]: { kind, busy: true } }));
    try {
      const outcome = kind === 'wait' ? (await call('tasks.wait', { taskId })).outcome : (await call('tasks.cancel', { taskId })).task.state;
      setRowActions((r) => ({ ...r, [taskId]: { kind, busy: false, outcome } }));
    } catch (e) {
      setRowActions((r) => ({ ...r, [taskId]: { kind, busy: false, error: toReport(e) } }));
    }
    await list.run();
    if (selected === taskId) await detail.run(taskId, 'local');
  };
  // Task updates journaled elsewhere (CLI, gateway, webhook) reload the list while it is shown.
  const stale = useRef(false);
  useEffect(
    () =>
      subscribe('events.appended', (batch) => {
        if (batch.events.some((e) => e.type.startsWith('a2a.task') || !!e.taskId)) stale.current = true;
      }),
    [],
  );
  const reloadList = list.run;
  useEffect(() => {
    if (!visible) return;
    const timer = setInterval(() => {
      if (!stale.current) return;
      stale.current = false;
      void reloadList();
    }, 1000);
    return () => clearInterval(timer);
  }, [visible, reloadList]);

  const [dir, setDir] = useState('');
  const exported = useAction((taskId: string) => call('artifacts.export', { taskId, outputDir: dir, force: false }));
  const tasks = list.data?.tasks ?? [];
  const listed = tasks.filter((t) => matchesFilter(filter, [t.task_id, t.agent_alias, t.state, t.context_id]));
  const d = selected ? (detail.data?.view ?? null) : null;
  return (
    <section className="view" data-testid="view-tasks">
      <h2>Tasks</h2>
      <div className="row">
        <Field label="Status">
          <select name="status" value={status} onChange={(e) => setStatus(e.target.value)}>
            <option value="">any</option>
            {SELECTABLE_TASK_STATES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
        <Field label="Agent">
          <input name="task-agent" value={agent} onChange={(e) => setAgent(e.target.value)} placeholder="any agent (alias)" />
        </Field>
        <button type="button" onClick={() => void list.run()}>
          Refresh
        </button>
      </div>
      <ErrorBox error={list.error} />
      {/* A list that could not be read is not an empty one: the error above says why. */}
      {tasks.length === 0 ? (
        list.error ? null : (
          <Empty title="No tasks in the journal">Send a message to an agent that answers with a task, or run a collective.</Empty>
        )
      ) : (
        <MasterDetail detail={detailPane()} label="task detail" onClose={() => setSelected(null)}>
          <ListFilter
            name="task-filter"
            label="Filter tasks"
            value={filter}
            onChange={setFilter}
            placeholder="id prefix, agent, state or context"
            shown={listed.length}
            total={tasks.length}
          />
          <table className="table tasks-table" data-testid="tasks-table">
            <thead>
              <tr>
                <th>Task</th>
                <th>Agent</th>
                <th>State</th>
                <th>Updated</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {listed.map((t) => {
                const action = rowActions[t.task_id];
                const ended = isTerminalTaskState(t.state);
                return (
                  <tr key={t.task_id} className={selected === t.task_id ? 'task-row selected' : 'task-row'} onClick={() => open(t.task_id)}>
                    <td className="task-id-cell">
                      <button
                        type="button"
                        className="row-link mono"
                        onClick={(e) => (e.stopPropagation(), open(t.task_id))}
                        aria-label={`Open task ${t.task_id}`}
                        aria-current={selected === t.task_id ? 'true' : undefined}
                      >
                        {t.task_id}
                      </button>
                    </td>
                    <td>{t.agent_alias}</td>
                    <td data-testid="task-state">
                      <TaskState state={t.state} />
                    </td>
                    <td data-testid="task-updated">
                      <Time at={t.updated_at} />
                    </td>
                    <td className="row-actions" onClick={(e) => e.stopPropagation()}>
                      {!ended ? (
                        <>
                          <button
                            type="button"
                            className="small"
                            disabled={action?.busy}
                            onClick={() => void runRow(t.task_id, 'wait')}
                            aria-label={`Wait for task ${t.task_id}`}
                          >
                            {action?.busy && action.kind === 'wait' ? 'Waiting…' : 'Wait'}
                          </button>
                          <button
                            type="button"
                            className="small danger"
                            disabled={action?.busy}
                            onClick={() => void runRow(t.task_id, 'cancel')}
                            aria-label={`Cancel task ${t.task_id}`}
                          >
                            {action?.busy && action.kind === 'cancel' ? 'Cancelling…' : 'Cancel'}
                          </button>
                        </>
                      ) : null}
                      {action && !action.busy ? (
                        <span className={action.error ? 'row-outcome error-code' : 'row-outcome muted'} data-testid="row-outcome" title={action.error?.message}>
                          {action.error ? action.error.code : `${action.kind === 'wait' ? 'waited' : 'cancel'}: ${action.outcome}`}
                        </span>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </MasterDetail>
      )}
      {tasks.length === 0 ? detailPane() : null}
    </section>
  );

  /** The open task's detail (null: none open). */
  function detailPane() {
    if (!selected || !(d || detail.error)) return null;
    return (
      <>
        <ErrorBox error={detail.error} />
        {d ? (
          <div className="card" data-testid="task-detail">
            <DetailHeading reveal={reveal} className="mono">
              {d.task.task_id}
            </DetailHeading>
            <p data-testid="task-detail-state">
              <TaskState state={d.task.state} checked={d.source === 'remote' || isLive(followed, d.task)} /> · {d.task.agent_alias} · context{' '}
              {d.task.context_id ? <IdLink kind="context" id={d.task.context_id} /> : '—'} · last change <Time at={d.task.updated_at} />
            </p>
            {/* State, following, Refresh / Wait / Cancel, and the agent's question with a reply box (components/FollowedTask.tsx). */}
            <FollowedTask key={d.task.task_id} taskId={d.task.task_id} initialState={d.task.state} onChange={onFollowed} />
            <h4>Artifacts</h4>
            {d.artifacts.length === 0 ? <p className="muted">none</p> : null}
            <ul>
              {d.artifacts.map((a) => (
                <li key={a.artifact_id}>
                  {a.artifact_id} {a.name ? `(${a.name})` : ''} v{a.version} · {a.kind}
                </li>
              ))}
            </ul>
            {d.artifacts.length ? (
              <div className="row">
                <Field label="Export to directory">
                  <input name="export-dir" value={dir} onChange={(e) => setDir(e.target.value)} placeholder="e.g. ~/exports/launch" />
                </Field>
                <button
                  type="button"
                  onClick={() =>
                    void call('dialogs.chooseDirectory', { title: 'Export artifacts to…' }).then((picked) => {
                      if (picked.path) setDir(picked.path);
                    })
                  }
                >
                  Choose…
                </button>
                <button type="button" onClick={() => void exported.run(d.task.task_id)} disabled={!dir} data-testid="export">
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
            <details className="raw-json">
              <summary>
                Everything <code>tasks.get</code> returned (JSON)
              </summary>
              <JsonTree value={d} label="task" />
            </details>
          </div>
        ) : null}
      </>
    );
  }
}

/** Whether following has just heard this state of the task from its agent (not only the journal). */
const isLive = (followed: FollowView | null, task: { task_id: string; state: string }) =>
  followed?.task.task_id === task.task_id && followed.via !== 'journal' && followed.task.state === task.state;

/** What the detail shows: the task view, and why asking the agent failed (the journal's view is shown instead). */
interface Detail {
  view: ChannelOutput<'tasks.get'>;
  checkError: IpcError | null;
}

/**
 * A task's state: a final one as it is; one that is not final marked "last known" unless the agent was just asked
 * (`checked`), because the journal only knows what it last heard.
 */
function TaskState({ state, checked = false }: { state: string; checked?: boolean }) {
  const final = isTerminalTaskState(state);
  return (
    <span
      className={stateClass(state)}
      title={final ? 'final state' : checked ? 'as the agent reported it just now' : 'the last state the journal heard of: open the task to ask the agent'}
    >
      {state}
      {!final && !checked ? <span className="muted"> (last known)</span> : null}
    </span>
  );
}
