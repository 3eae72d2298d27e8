/** Capability labels derived from an Agent Card and local metadata: what routing and `agent capabilities` use. */
import type { ParsedCard } from './card.js';

export interface CapabilityView {
  labels: string[];
  skills: Array<{ id: string; name: string | null; tags: string[] }>;
  streaming: boolean;
  push_notifications: boolean;
  input_modes: string[];
  output_modes: string[];
}

const label = (text: string) => text.trim().toLowerCase().replace(/\s+/g, '-');

export function capabilityView(card: ParsedCard | null, metadata: Record<string, unknown> = {}): CapabilityView {
  const wire = card?.wire;
  const skills = (wire?.skills ?? []).map((s) => ({ id: s.id, name: s.name ?? null, tags: s.tags ?? [] }));
  const streaming = wire?.capabilities?.streaming === true;
  const push = wire?.capabilities?.pushNotifications === true;
  const inputModes = wire?.defaultInputModes ?? [];
  const outputModes = wire?.defaultOutputModes ?? [];
  const labels = new Set<string>();
  for (const skill of skills) {
    labels.add(label(skill.id));
    if (skill.name) labels.add(label(skill.name));
    for (const tag of skill.tags) labels.add(label(tag));
  }
  for (const key of ['capability', 'capabilities', 'skill', 'skills']) {
    const value = metadata[key];
    for (const item of Array.isArray(value) ? value : typeof value === 'string' ? [value] : []) {
      if (typeof item === 'string') labels.add(label(item));
    }
  }
  for (const mode of inputModes) labels.add(`input:${mode}`);
  for (const mode of outputModes) labels.add(`output:${mode}`);
  if (streaming) labels.add('streaming');
  if (push) labels.add('push-notifications');
  return {
    labels: [...labels].filter(Boolean).sort(),
    skills,
    streaming,
    push_notifications: push,
    input_modes: inputModes,
    output_modes: outputModes,
  };
}
