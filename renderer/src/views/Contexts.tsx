import { useState } from 'react';
import { call } from '../api';
import { useAction, useLoad } from '../hooks';
import { Empty, ErrorBox, Field, JsonTree } from '../components/common';

export function ContextsView() {
  const list = useLoad(() => call('contexts.list', {}), []);
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const c = await call('contexts.create', { name: name || undefined });
    await list.run();
    return c;
  });
  const fork = useAction(async (id: string) => {
    const c = await call('contexts.fork', { context: id });
    await list.run();
    return c;
  });
  const exported = useAction((id: string) => call('contexts.export', { context: id }));
  const contexts = list.data?.contexts ?? [];
  return (
    <section className="view" data-testid="view-contexts">
      <h2>Contexts</h2>
      <div className="row">
        <Field label="Name">
          <input name="context-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="launch-plan" />
        </Field>
        <button onClick={() => void create.run()}>Create context</button>
      </div>
      <ErrorBox error={create.error ?? fork.error ?? exported.error ?? list.error} />
      {contexts.length === 0 ? (
        <Empty title="No contexts yet">Contexts appear when you send with one, or create one here to group a conversation.</Empty>
      ) : (
        <table className="table" data-testid="contexts-table">
          <tbody>
            {contexts.map((c: any) => (
              <tr key={c.context_id}>
                <td>{c.name ?? <span className="muted">unnamed</span>}</td>
                <td className="mono">{c.context_id}</td>
                <td>{c.state}</td>
                <td>
                  {c.tasks} tasks · {c.messages} messages
                </td>
                <td>
                  <button onClick={() => void fork.run(c.context_id)}>Fork</button> <button onClick={() => void exported.run(c.context_id)}>Export</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {exported.data ? <JsonTree value={exported.data} label="export" /> : null}
    </section>
  );
}
