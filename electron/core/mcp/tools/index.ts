/** Every tool the MCP server has besides the per-skill ones (skill-tools.ts), in the order tools/list lists them. */
import type { ToolSpec } from '../tool-spec.js';
import { AGENT_TOOLS } from './agents.js';
import { MESSAGE_TOOLS } from './messages.js';
import { TASK_TOOLS } from './tasks.js';
import { COLLECTIVE_TOOLS } from './collectives.js';
import { JOURNAL_TOOLS } from './journal.js';
import { ADMIN_TOOLS } from './admin.js';

export const STATIC_TOOLS: readonly ToolSpec[] = [...AGENT_TOOLS, ...MESSAGE_TOOLS, ...TASK_TOOLS, ...COLLECTIVE_TOOLS, ...JOURNAL_TOOLS, ...ADMIN_TOOLS];
