import { checkDriftTool } from './checkDrift';
import type { ToolDependencies } from './dependencies';
import { findSymbolTool } from './findSymbol';
import { grepCodeTool } from './grepCode';
import { readCodeTool } from './readCode';
import { readPageTool } from './readPage';
import { repoMapTool } from './repoMap';
import { searchWikiTool } from './searchWiki';
import type { WikiTool } from './tool';

export type { ToolDependencies } from './dependencies';
export { proposePageChangeTool } from './proposePageChange';
export { CodeSearchError, MAX_GLOB_CHARS, type CodeMatch, type CodeSearch, type GrepOptions, type GrepResult } from './codeSearch';
export type { ToolInputSchema, ToolName, ToolResult, WikiTool } from './tool';

/** The read-only tools of one workspace folder, in the order a model is offered them. */
export function createWikiTools(deps: ToolDependencies): WikiTool[] {
  return [searchWikiTool(deps), readPageTool(deps), readCodeTool(deps), findSymbolTool(deps), grepCodeTool(deps), checkDriftTool(deps), repoMapTool(deps)];
}
