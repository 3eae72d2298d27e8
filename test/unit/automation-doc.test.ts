/**
 * docs/automation.md documents every channel of the IPC contract: its generated section must equal what
 * electron/core/adapters/contract-doc.ts renders from shared/ipc/contract.ts now, so a changed schema or a new channel
 * fails here until the document is regenerated.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHANNELS, EVENT_CHANNELS } from '../../shared/ipc/contract.js';
import {
  CHANNEL_DESCRIPTIONS,
  generatedSection,
  GENERATED_BEGIN,
  GENERATED_END,
  REGENERATE_COMMAND,
  renderChannelReference,
  spliceGenerated,
} from '../../electron/core/adapters/contract-doc.js';

const doc = readFileSync(new URL('../../docs/automation.md', import.meta.url), 'utf8');

describe('docs/automation.md', () => {
  it('has a generated channel reference equal to what the contract renders now', () => {
    const committed = generatedSection(doc);
    expect(committed, `docs/automation.md lacks the ${GENERATED_BEGIN} … ${GENERATED_END} markers`).not.toBeNull();
    // Not toEqual on 3000 lines: one clear message that says how to fix it.
    const fresh = renderChannelReference();
    if (committed !== fresh) {
      const at = [...fresh].findIndex((ch, i) => committed![i] !== ch);
      const line = fresh.slice(0, at === -1 ? committed!.length : at).split('\n').length;
      expect.fail(
        `docs/automation.md is out of date with shared/ipc/contract.ts (first difference at line ${line} of the generated section); regenerate it with: ${REGENERATE_COMMAND}`,
      );
    }
    expect(spliceGenerated(doc)).toBe(doc);
  });

  it('documents every request and event channel with a heading, a description and both schemas', () => {
    const section = generatedSection(doc)!;
    for (const channel of Object.keys(CHANNELS) as Array<keyof typeof CHANNELS>) {
      const start = section.indexOf(`### \`${channel}\`\n`);
      expect(start, `no heading for ${channel}`).toBeGreaterThan(-1);
      const body = section.slice(start, section.indexOf('\n### ', start + 1) === -1 ? undefined : section.indexOf('\n### ', start + 1));
      expect(body).toContain(CHANNEL_DESCRIPTIONS[channel]);
      expect(body).toContain('Input JSON Schema');
      expect(body).toContain('Output JSON Schema');
    }
    for (const event of Object.keys(EVENT_CHANNELS)) expect(section).toContain(`### \`${event}\` (event)`);
    expect(section).toContain(`## Request channels (${Object.keys(CHANNELS).length})`);
  });

  it('detects drift: a changed channel reference is not the committed one', () => {
    const drifted = spliceGenerated(doc, renderChannelReference().replace('### `app.info`', '### `app.info2`'));
    expect(generatedSection(drifted)).not.toBe(renderChannelReference());
    // The text around the markers is kept as written.
    expect(drifted.slice(0, drifted.indexOf(GENERATED_BEGIN))).toBe(doc.slice(0, doc.indexOf(GENERATED_BEGIN)));
  });

  it('keeps the hand-written sections: frames, modes, exit codes, examples and the file-drop slot', () => {
    for (const heading of ['## Frames', '## `adapter stdio`', '### Exit codes', '## adapter file-drop']) expect(doc).toContain(heading);
    expect(doc).toContain('printf \'{"id":1,"channel":"app.info","input":{}}\\n\' | missive adapter stdio --mode single-shot');
    expect(doc.indexOf('<!-- file-drop:begin -->')).toBeGreaterThan(doc.indexOf('## adapter file-drop'));
    expect(doc.indexOf('<!-- file-drop:end -->')).toBeGreaterThan(doc.indexOf('<!-- file-drop:begin -->'));
  });
});
