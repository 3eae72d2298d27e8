/**
 * Compose's request form: agent, context and mode; the text (Ctrl+Enter sends), a JSON part and files; more options
 * (binding, output modes, metadata, return immediately, a push URL for this send's task); what the next message
 * replies to (a task waiting for input), and the Send button with "Copy as". State lives in the view (Compose.tsx).
 */
import type { Ref } from 'react';
import { Field } from '../components/common';
import { CopyAs } from '../components/CopyAs';
import { IdLink } from '../components/IdLink';
import { PushReceiverOffer } from '../components/PushReceiverOffer';
import type { CopyText } from '../components/copy-text';
import { describeCarried, type Draft, type FileKind } from './compose-draft';
import type { ChannelOutput } from '../../../shared/ipc/contract';

export type Mode = 'send' | 'stream';

interface ComposeFormProps {
  agents: string[];
  target: string;
  /** The user picked another agent (a new conversation starts). */
  onAgent: (alias: string) => void;
  mode: Mode;
  setMode: (mode: Mode) => void;
  draft: Draft;
  edit: (patch: Partial<Draft>) => void;
  contexts: ChannelOutput<'contexts.list'>['contexts'];
  moreOpen: boolean;
  setMoreOpen: (open: boolean) => void;
  submit: () => void;
  textRef: Ref<HTMLTextAreaElement>;
  copyCommand: () => CopyText;
  copyCurl: () => CopyText | Promise<CopyText>;
}

export function ComposeForm(p: ComposeFormProps) {
  const { draft, edit, target } = p;
  const carried = describeCarried(draft.carried);
  return (
    <div className="compose-form">
      <div className="row">
        <Field label="Agent">
          <select name="agent" value={target} onChange={(e) => p.onAgent(e.target.value)}>
            {target && !p.agents.includes(target) ? <option value={target}>{target} (not registered)</option> : null}
            {p.agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Context">
          <select name="context" value={draft.context} onChange={(e) => edit({ context: e.target.value, taskId: '' })}>
            <option value="">new context</option>
            {draft.context && !p.contexts.some((c) => c.context_id === draft.context) ? <option value={draft.context}>{draft.context}</option> : null}
            {p.contexts.map((c) => (
              <option key={c.context_id} value={c.context_id}>
                {c.name ?? c.context_id}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Mode">
          <select name="mode" value={p.mode} onChange={(e) => p.setMode(e.target.value as Mode)}>
            <option value="send">send (SendMessage)</option>
            <option value="stream">stream (SendStreamingMessage)</option>
          </select>
        </Field>
      </div>
      {draft.taskId ? (
        <p className="compose-replying" data-testid="replying-to">
          Replying in task <IdLink kind="task" id={draft.taskId} />, which is waiting for your answer.{' '}
          <button type="button" className="link" onClick={() => edit({ taskId: '' })}>
            Start a new task instead
          </button>
        </p>
      ) : null}
      <Field label={draft.taskId ? 'Your reply' : 'Text part'}>
        <textarea
          ref={p.textRef}
          name="text"
          rows={4}
          value={draft.text}
          onChange={(e) => edit({ text: e.target.value })}
          placeholder="Ask the agent something (Ctrl+Enter sends)"
        />
      </Field>
      <div className="row">
        <Field label="JSON data part (optional)">
          <input name="json" value={draft.json} onChange={(e) => edit({ json: e.target.value })} placeholder='e.g. {"key": "value"}' />
        </Field>
        <Field label="Files (paths, comma separated)">
          <input name="files" value={draft.files} onChange={(e) => edit({ files: e.target.value })} placeholder="e.g. /path/notes.md" />
        </Field>
      </div>
      <details className="more-options" open={p.moreOpen} onToggle={(e) => p.setMoreOpen(e.currentTarget.open)}>
        <summary>More options (files as, binding, metadata, output modes, push URL)</summary>
        <div className="row">
          <Field label="Send files as">
            <select name="file-kind" value={draft.fileKind} onChange={(e) => edit({ fileKind: e.target.value as FileKind })}>
              <option value="files">text part (UTF-8)</option>
              <option value="fileUrls">file:// url part (no bytes sent)</option>
              <option value="fileBytes">raw bytes part (base64)</option>
            </select>
          </Field>
          <Field label="Binding">
            <select name="binding" value={draft.binding} onChange={(e) => edit({ binding: e.target.value as Draft['binding'] })}>
              <option value="">negotiated (card order)</option>
              <option value="http+json">HTTP+JSON</option>
              <option value="json-rpc">JSON-RPC</option>
              <option value="grpc">gRPC</option>
            </select>
          </Field>
        </div>
        <div className="row">
          <Field label="Accepted output modes (comma separated)">
            <input
              name="output-modes"
              value={draft.outputModes}
              onChange={(e) => edit({ outputModes: e.target.value })}
              placeholder="e.g. text/plain, application/json"
            />
          </Field>
          <Field label="Push URL (this task's callbacks)">
            <input
              name="push-url"
              value={draft.pushUrl}
              onChange={(e) => edit({ pushUrl: e.target.value })}
              placeholder="e.g. http://127.0.0.1:8787/a2a/push"
            />
          </Field>
          <PushReceiverOffer current={draft.pushUrl.trim()} onUse={(url) => edit({ pushUrl: url })} />
        </div>
        <Field label="Metadata (one key=value per line, not secret)">
          <textarea name="metadata" rows={2} value={draft.metadata} onChange={(e) => edit({ metadata: e.target.value })} placeholder="e.g. ticket=OPS-12" />
        </Field>
        <label className="check">
          <input type="checkbox" name="return-immediately" checked={draft.returnImmediately} onChange={(e) => edit({ returnImmediately: e.target.checked })} />{' '}
          Return immediately (the agent answers with the task at once)
        </label>
      </details>
      {carried ? (
        <p className="carried" data-testid="carried">
          Also sends, from the reopened request: {carried}.{' '}
          <button type="button" className="link" onClick={() => edit({ carried: {} })}>
            Drop them
          </button>
        </p>
      ) : null}
      <div className="row actions">
        <button onClick={p.submit} disabled={!target} data-testid="send">
          {draft.taskId ? 'Reply' : p.mode === 'send' ? 'Send' : 'Stream'}
        </button>
        {target ? <CopyAs testId="compose-copy" label="this request" command={p.copyCommand} curl={p.copyCurl} /> : null}
      </div>
    </div>
  );
}
