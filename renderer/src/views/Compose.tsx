import { useEffect, useState } from 'react';
import { call, subscribe } from '../api';
import { useAction, useLoad } from '../hooks';
import { Empty, ErrorBox, Field, JsonTree, stateClass } from '../components/common';
import type { EventPayload } from '../../../shared/ipc/contract';

type StreamEvent = EventPayload<'messages.stream.event'> & Record<string, any>;

export function ComposeView() {
  const agents = useLoad(() => call('agents.list', {}), []);
  const contexts = useLoad(() => call('contexts.list', {}), []);
  const [agent, setAgent] = useState('');
  const [text, setText] = useState('');
  const [json, setJson] = useState('');
  const [files, setFiles] = useState('');
  const [fileKind, setFileKind] = useState<'files' | 'fileUrls' | 'fileBytes'>('files');
  const [context, setContext] = useState('');
  const [mode, setMode] = useState<'send' | 'stream'>('send');
  const [timeline, setTimeline] = useState<StreamEvent[]>([]);
  useEffect(() => subscribe('messages.stream.event', (e) => setTimeline((t) => [...t, e as StreamEvent])), []);
  const paths = files.split(/[\n,]+/).map((f) => f.trim()).filter(Boolean);
  const inputs = () => ({ text: text || undefined, jsonParts: json ? [json] : undefined, ...(paths.length ? { [fileKind]: paths } : {}), contextId: context || undefined });
  const send = useAction(async () => {
    setTimeline([]);
    const target = agent || (agents.data?.agents[0] as any)?.alias;
    return mode === 'send' ? call('messages.send', { agent: target, inputs: inputs() }) : call('messages.stream', { agent: target, inputs: inputs() });
  });
  const list = agents.data?.agents ?? [];
  const result = send.data as any;
  return (
    <section
      className="view"
      data-testid="view-compose"
      onKeyDown={(e) => {
        if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') void send.run();
      }}
    >
      <h2>Compose</h2>
      {list.length === 0 ? <Empty title="No agents to talk to">Register an agent (or start the demo agents) in the Agents view first.</Empty> : null}
      <div className="row">
        <Field label="Agent">
          <select name="agent" value={agent} onChange={(e) => setAgent(e.target.value)}>
            {list.map((a: any) => (
              <option key={a.alias} value={a.alias}>
                {a.alias}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Context">
          <select name="context" value={context} onChange={(e) => setContext(e.target.value)}>
            <option value="">new context</option>
            {(contexts.data?.contexts ?? []).map((c: any) => (
              <option key={c.context_id} value={c.context_id}>
                {c.name ?? c.context_id}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Mode">
          <select name="mode" value={mode} onChange={(e) => setMode(e.target.value as 'send' | 'stream')}>
            <option value="send">send (SendMessage)</option>
            <option value="stream">stream (SendStreamingMessage)</option>
          </select>
        </Field>
      </div>
      <Field label="Text part">
        <textarea name="text" rows={4} value={text} onChange={(e) => setText(e.target.value)} placeholder="Ask the agent something (Ctrl+Enter sends)" />
      </Field>
      <Field label="JSON data part (optional)">
        <input name="json" value={json} onChange={(e) => setJson(e.target.value)} placeholder='{"key": "value"}' />
      </Field>
      <div className="row">
        <Field label="Files (paths, comma separated)">
          <input name="files" value={files} onChange={(e) => setFiles(e.target.value)} placeholder="/path/notes.md" />
        </Field>
        <Field label="Send files as">
          <select name="file-kind" value={fileKind} onChange={(e) => setFileKind(e.target.value as typeof fileKind)}>
            <option value="files">text part (UTF-8)</option>
            <option value="fileUrls">file:// url part (no bytes sent)</option>
            <option value="fileBytes">raw bytes part (base64)</option>
          </select>
        </Field>
      </div>
      <button onClick={() => void send.run()} disabled={send.busy || list.length === 0} data-testid="send">
        {mode === 'send' ? 'Send' : 'Stream'}
      </button>
      <ErrorBox error={send.error} />
      {timeline.length ? (
        <ol className="timeline" data-testid="timeline">
          {timeline.map((e) => (
            <li key={e.sequence}>
              <span className="mono">#{e.sequence}</span> <strong>{e.variant}</strong> {e.state ? <span className={stateClass(e.state)}>{e.state}</span> : null}
              {e.artifact ? <span className="chip">{`${e.artifact.artifact_id} v${e.artifact.version}${e.artifact.last_chunk ? ' ✓' : ''}`}</span> : null} {e.text ?? ''}
            </li>
          ))}
        </ol>
      ) : null}
      {result ? (
        <div className="card" data-testid="send-result">
          <div>
            {result.response_shape ? `answered with a ${result.response_shape}` : `${result.events} events`}
            {result.task ? <span className={stateClass(result.task.state)}> {result.task.state}</span> : null}
          </div>
          <div className="answer" data-testid="answer">
            {result.response?.message?.parts?.map((p: any) => p.text).join('\n') ?? result.response?.task?.status?.message?.parts?.map((p: any) => p.text).join('\n') ?? result.last_message_text ?? ''}
          </div>
          <JsonTree value={result} label="result" />
        </div>
      ) : null}
    </section>
  );
}
