/**
 * One definition per tool, served unchanged to the Anthropic `tools` parameter, VS Code language
 * model tools and MCP. Tools only read, but for propose_page_change, which stores a proposal for a
 * person to review. A bad or refused input is an error result, never a throw.
 */

export type ToolName = 'search_wiki' | 'read_page' | 'read_code' | 'find_symbol' | 'grep_code' | 'check_drift' | 'repo_map' | 'propose_page_change';

/** A JSON Schema (draft 2020-12) object describing a tool's input. */
export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
  [keyword: string]: unknown;
}

export interface ToolResult {
  /** False for a bad or refused input: `is_error` for Anthropic, `isError` for MCP. The loop goes on. */
  ok: boolean;
  /** What the model reads. Data, never instructions: callers fence it. */
  text: string;
  /** One line for people, e.g. `4 pages`, `src/a.ts:Foo (lines 10–42)`, `refused: outside the workspace`. */
  summary: string;
  /** Code citations whose current code this result showed (`path`, `path:Symbol`, `path#L1-L9`): an answer may cite them as verified. */
  read?: string[];
}

export interface WikiTool {
  readonly name: ToolName;
  /** What the step is called in the chat, from its input: `Searched the wiki for "retry"`, `Read src/a.ts:Foo`. */
  label(input: unknown): string;
  /** For the model: what the tool is for and when to reach for it. */
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  /**
   * Validates `input`, then runs. Resolves with an error result for bad input, a refused read or a
   * call past its deadline (summary `timed out`); rejects only when `signal` aborts.
   */
  run(input: unknown, signal?: AbortSignal): Promise<ToolResult>;
}
