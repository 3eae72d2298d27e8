/**
 * Compose's form as data: the fields the user edits (`Draft`), how they become the inputs of messages.send (the same
 * inputs as `missive send`), and how a journaled request's inputs (History's "Open in Compose") fill them again.
 * Inputs the form has no field for (extra text parts, a second kind of file) are carried along unchanged.
 */
import type { MessageInputs, SendInputs } from '../../../shared/ipc/contract';

export type FileKind = 'files' | 'fileUrls' | 'fileBytes';
export type Binding = '' | 'http+json' | 'json-rpc' | 'grpc';

export interface Draft {
  text: string;
  /** One JSON data part. */
  json: string;
  /** File paths, comma or newline separated, sent as `fileKind`. */
  files: string;
  fileKind: FileKind;
  context: string;
  /** The task the next message replies in (an `input_required` or `auth_required` task); '' starts a new one. */
  taskId: string;
  /** An inline push callback URL for this send's task; '' for none. */
  pushUrl: string;
  binding: Binding;
  /** One `key=value` per line. */
  metadata: string;
  /** Accepted output media types, comma separated. */
  outputModes: string;
  returnImmediately: boolean;
  /** Inputs from a reopened request that the form has no field for; sent as they are until dropped. */
  carried: Pick<MessageInputs, 'parts' | 'jsonParts' | FileKind>;
}

export const EMPTY_DRAFT: Draft = {
  text: '',
  json: '',
  files: '',
  fileKind: 'files',
  context: '',
  taskId: '',
  pushUrl: '',
  binding: '',
  metadata: '',
  outputModes: '',
  returnImmediately: false,
  carried: {},
};

const list = (value: string, separator: RegExp) =>
  value
    .split(separator)
    .map((v) => v.trim())
    .filter(Boolean);
const nonEmpty = <T>(values: T[] | undefined): T[] | undefined => (values && values.length ? values : undefined);

/** The draft as messages.send inputs: absent fields stay absent, so the journal and copy-as show only what was set. */
export function inputsOf(draft: Draft): SendInputs {
  const paths = list(draft.files, /[\n,]+/);
  const c = draft.carried;
  const files = (kind: FileKind) => nonEmpty([...(c[kind] ?? []), ...(draft.fileKind === kind ? paths : [])]);
  const inputs: SendInputs = {
    text: draft.text || undefined,
    parts: nonEmpty(c.parts),
    jsonParts: nonEmpty([...(draft.json.trim() ? [draft.json] : []), ...(c.jsonParts ?? [])]),
    files: files('files'),
    fileUrls: files('fileUrls'),
    fileBytes: files('fileBytes'),
    contextId: draft.context || undefined,
    taskId: draft.taskId || undefined,
    pushUrl: draft.pushUrl.trim() || undefined,
    metadata: nonEmpty(list(draft.metadata, /\n+/)),
    acceptedOutputModes: nonEmpty(list(draft.outputModes, /[\s,]+/)),
    returnImmediately: draft.returnImmediately || undefined,
    binding: draft.binding || undefined,
  };
  return Object.fromEntries(Object.entries(inputs).filter(([, v]) => v !== undefined)) as SendInputs;
}

/** A journaled request's inputs as a draft: the first file kind present goes in the Files field, the rest is carried. */
export function draftOf(inputs: MessageInputs): Draft {
  const kinds: FileKind[] = ['files', 'fileUrls', 'fileBytes'];
  const fileKind = kinds.find((k) => inputs[k]?.length) ?? 'files';
  const carried: Draft['carried'] = {};
  if (inputs.parts?.length) carried.parts = inputs.parts;
  if ((inputs.jsonParts?.length ?? 0) > 1) carried.jsonParts = inputs.jsonParts!.slice(1);
  for (const k of kinds) if (k !== fileKind && inputs[k]?.length) carried[k] = inputs[k];
  return {
    text: inputs.text ?? '',
    json: inputs.jsonParts?.[0] ?? '',
    files: (inputs[fileKind] ?? []).join(', '),
    fileKind,
    context: inputs.contextId ?? '',
    taskId: '',
    pushUrl: '',
    binding: inputs.binding ?? '',
    metadata: (inputs.metadata ?? []).join('\n'),
    outputModes: (inputs.acceptedOutputModes ?? []).join(', '),
    returnImmediately: inputs.returnImmediately ?? false,
    carried,
  };
}

/** A one-line description of the carried inputs, e.g. "2 text parts, 1 file:// url part"; '' when nothing is carried. */
export function describeCarried(carried: Draft['carried']): string {
  const names: Record<keyof Draft['carried'], string> = {
    parts: 'text part',
    jsonParts: 'JSON part',
    files: 'text file part',
    fileUrls: 'file:// url part',
    fileBytes: 'raw bytes part',
  };
  return (Object.keys(names) as Array<keyof Draft['carried']>)
    .filter((k) => carried[k]?.length)
    .map((k) => `${carried[k]!.length} ${names[k]}${carried[k]!.length > 1 ? 's' : ''}`)
    .join(', ');
}

/** The inputs `requests.preview` and the "Copy as" texts accept: the send's own fields (task, push URL) left out. */
export function previewInputsOf(inputs: SendInputs): MessageInputs {
  const { taskId: _taskId, pushUrl: _pushUrl, ...rest } = inputs;
  return rest;
}
