/** The tools of the MCP server, in the order they are listed. */
import { CALCULATE_TOOL } from './calculate.ts';
import { CHECK_FIGURES_TOOL } from './check-figures.ts';
import { COMPARE_TOOL } from './compare.ts';
import { EXPLAIN_TOOL } from './explain.ts';
import type { ToolSpec } from './tool.ts';

export const TOOLS: readonly ToolSpec[] = [CALCULATE_TOOL, COMPARE_TOOL, EXPLAIN_TOOL, CHECK_FIGURES_TOOL];
