/** Shape inference for v0.3 JSON-RPC results without `kind` (result-kinds.ts), and the answer text of tasks (answer-text.ts). */
import { describe, expect, it } from 'vitest';
import { completeJsonRpcBody, RESULT_KINDS } from '../../electron/core/a2a/result-kinds.js';
import { answerOfResponse } from '../../electron/core/tasks/answer-text.js';

const origin = { agent: '"peer"', wireMethod: 'message/send' };
const body = (result: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, result });

describe('completeJsonRpcBody', () => {
  it('leaves a result that has its kind byte for byte', () => {
    const text = body({ kind: 'task', id: 't', status: { state: 'completed' } });
    expect(completeJsonRpcBody(text, RESULT_KINDS.SendMessage!, origin)).toEqual({ text, changed: false });
  });

  it('completes the task, its history, status message and artifact parts', () => {
    const task = {
      id: 't',
      status: { state: 'completed', message: { messageId: 'm', role: 'agent', parts: [{ text: 'hi' }] } },
      history: [{ messageId: 'u', role: 'user', parts: [{ type: 'text', text: 'q' }] }],
      artifacts: [{ artifactId: 'a', parts: [{ data: { n: 1 } }, { file: { uri: 'file:///x' } }] }],
    };
    const out = JSON.parse(completeJsonRpcBody(body(task), RESULT_KINDS.SendMessage!, origin).text).result;
    expect(out.kind).toBe('task');
    expect(out.status.message).toMatchObject({ kind: 'message', parts: [{ kind: 'text' }] });
    expect(out.history[0]).toMatchObject({ kind: 'message', parts: [{ kind: 'text', type: 'text' }] });
    expect(out.artifacts[0].parts.map((p: { kind: string }) => p.kind)).toEqual(['data', 'file']);
  });

  it('refuses a result that fits no shape, naming the shapes it lacks', () => {
    expect(() => completeJsonRpcBody(body({ role: 'agent', parts: [] }), RESULT_KINDS.SendMessage!, origin)).toThrow(
      /agent "peer" answered message\/send with a result that has no "kind" and fits none of a task or a message \(task: id \+ status; message: messageId \+ role\)/,
    );
  });

  it('only picks among the kinds the method may answer', () => {
    // taskId + status is a status update in a stream, but not a message/send result.
    expect(() => completeJsonRpcBody(body({ taskId: 't', status: { state: 'working' } }), RESULT_KINDS.SendMessage!, origin)).toThrow(/fits none of/);
    const streamed = completeJsonRpcBody(body({ taskId: 't', status: { state: 'working' } }), RESULT_KINDS.SendStreamingMessage!, { ...origin, event: 3 });
    expect(JSON.parse(streamed.text).result.kind).toBe('status-update');
  });
});

describe('answerOfResponse', () => {
  it('prefers the status message, else the artifacts; files are summarised, never printed', () => {
    const withStatus = { task: { status: { message: { parts: [{ text: 'done' }] } }, artifacts: [{ parts: [{ text: 'long output' }] }] } };
    expect(answerOfResponse(withStatus)).toBe('done');
    const raw = Buffer.from('secret file body').toString('base64');
    const only = {
      task: {
        status: {},
        artifacts: [
          { parts: [{ text: '' }, { raw, filename: 'a.bin', mediaType: 'application/octet-stream' }] },
          { parts: [{ url: 'https://x.example/r.pdf' }] },
        ],
      },
    };
    expect(answerOfResponse(only)).toBe('[file a.bin, application/octet-stream, 16 B]\n[file unnamed, no media type, https://x.example/r.pdf]');
    expect(answerOfResponse({ task: { status: {} } })).toBeNull();
  });
});
