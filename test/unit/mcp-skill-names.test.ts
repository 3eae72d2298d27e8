/**
 * The names and texts per-skill tools are made from: a skill's id is an agent's own text, so its tool name keeps to
 * MCP's rules (1–64 of `A-Za-z0-9_.-`, here lowercase), never takes a name already taken, and comes out the same for
 * the same cards; a card's text loses its control and bidirectional characters and is capped.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TOOL_NAME, nameSegment, skillToolBase, uniqueName } from '../../electron/core/mcp/skill-names.js';
import { cleanCardText } from '../../electron/core/mcp/agent-cards.js';

const RULE = /^[a-z0-9_.-]{1,64}$/;

describe('skill tool names', () => {
  it('is ask_<alias>_<skill id>, lowercase, with every other character one underscore', () => {
    expect(skillToolBase('billing', 'refunds')).toBe('ask_billing_refunds');
    expect(skillToolBase('billing', 'Issue Refund / Credit')).toBe('ask_billing_issue_refund_credit');
    expect(skillToolBase('café-bot', 'Résumé')).toBe('ask_cafe-bot_resume');
    expect(skillToolBase('a', '日本語')).toBe('ask_a_skill');
    expect(skillToolBase('a', `x\u202e\u0000<script>alert(1)</script>`)).toBe('ask_a_x_script_alert_1_script');
    expect(nameSegment('__--..__')).toBe('');
  });

  it('cuts a long name to 64 characters, and never ends it with a separator', () => {
    const name = skillToolBase('agent', `${'a'.repeat(55)}_${'b'.repeat(20)}`);
    expect(name).toBe(`ask_agent_${'a'.repeat(54)}`);
    expect(skillToolBase('agent', `${'a'.repeat(52)}_bb`)).toBe(`ask_agent_${'a'.repeat(52)}_b`);
    expect(skillToolBase('agent', `${'a'.repeat(53)}_bb`)).toBe(`ask_agent_${'a'.repeat(53)}`);
    expect(skillToolBase('agent', `${'a'.repeat(54)}_bb`)).toBe(`ask_agent_${'a'.repeat(54)}`);
  });

  it('makes a name taken (a static tool, an earlier skill) unique with the smallest free suffix, within 64', () => {
    const taken = new Set(['list_agents', 'ask_x_y']);
    expect(uniqueName('ask_x_y', taken)).toBe('ask_x_y_2');
    expect(uniqueName('ask_x_y', taken)).toBe('ask_x_y_3');
    const long = `ask_${'z'.repeat(60)}`;
    expect(uniqueName(long, taken)).toBe(long);
    const second = uniqueName(long, taken);
    expect(second).toBe(`${long.slice(0, MAX_TOOL_NAME - 2)}_2`);
    for (const name of taken) expect(name).toMatch(RULE);
    expect(taken.size).toBe(6);
  });

  it('gives the same names for the same skills in the same order', () => {
    const names = () => {
      const taken = new Set<string>();
      return ['refunds', 'Refunds', 'REFUNDS!', 'other'].map((id) => uniqueName(skillToolBase('b', id), taken));
    };
    expect(names()).toEqual(['ask_b_refunds', 'ask_b_refunds_2', 'ask_b_refunds_3', 'ask_b_other']);
    expect(names()).toEqual(names());
  });
});

describe('card text', () => {
  it('drops control, bidirectional and zero-width characters, collapses spaces and caps the length', () => {
    expect(cleanCardText('Evil\nName\u0007\u202e\u200b here', 100)).toBe('Evil Name here');
    expect(cleanCardText('a'.repeat(50), 10)).toBe(`${'a'.repeat(9)}…`);
    expect(cleanCardText(42, 10)).toBe('');
    expect(cleanCardText(`${'a'.repeat(7)}😀b`, 9)).toBe(`${'a'.repeat(7)}…`);
  });
});
