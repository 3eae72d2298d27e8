/**
 * The one rule every view reads an artifact's text with (shared/artifact-text.ts): the text pieces of one artifact (one
 * per token when an LLM framework streams, handed back as consecutive text parts by the agent's SDK) are one text; data
 * and file parts stay parts; different artifacts stay separate. The desktop app's answer model
 * (renderer/src/components/answer-model.ts) calls the same functions for a send's artifacts and a stream's chunks.
 */
import { describe, expect, it } from 'vitest';
import { appendArtifactParts, artifactText, joinArtifactParts } from '../../shared/artifact-text.js';
import { answerOfResponse } from '../../electron/core/tasks/answer-text.js';

const tokens = ['The', ' quick', ' brown', ' fox'];

describe('artifact text', () => {
  it('joins consecutive text pieces as sent, with nothing inserted', () => {
    expect(artifactText(tokens.map((text) => ({ text })))).toBe('The quick brown fox');
    expect(joinArtifactParts(tokens.map((text) => ({ text, mediaType: 'text/plain' })))).toEqual([{ text: 'The quick brown fox', mediaType: 'text/plain' }]);
  });

  it('keeps data and file parts, and text of another media type, apart', () => {
    const parts = [
      { text: 'a' },
      { text: 'b' },
      { data: { n: 1 } },
      { text: 'c' },
      { text: '# d', mediaType: 'text/markdown' },
      { url: 'https://x.example/f' },
    ];
    expect(joinArtifactParts(parts)).toEqual([
      { text: 'ab' },
      { data: { n: 1 } },
      { text: 'c' },
      { text: '# d', mediaType: 'text/markdown' },
      { url: 'https://x.example/f' },
    ]);
    expect(artifactText(parts)).toBe('ab\nc\n# d');
    expect(artifactText([{ data: {} }])).toBeNull();
  });

  it('continues the artifact with an appended chunk', () => {
    expect(appendArtifactParts([{ text: 'The' }], [{ text: ' quick' }, { data: 1 }])).toEqual([{ text: 'The quick' }, { data: 1 }]);
  });

  it('answers a task with each artifact on its own line, the pieces of each joined', () => {
    const artifact = (id: string, pieces: string[]) => ({ artifactId: id, parts: pieces.map((text) => ({ text })) });
    expect(answerOfResponse({ task: { status: {}, artifacts: [artifact('a', tokens), artifact('b', ['second', ' one'])] } })).toBe(
      'The quick brown fox\nsecond one',
    );
  });
});
