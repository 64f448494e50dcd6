import * as path from 'node:path';
import { isFileAccessError, isNotAFile, isStackOverflow } from '../errors';
import type { SourceSymbol } from '../drift/symbols';
import type { ToolResult } from './tool';
import type { ToolDependencies } from './dependencies';
import { failure, refused } from './toolKit';

/** Bytes of a file read at most; a larger file is cut here (line ranges) or refused (symbols). */
export const MAX_READ_BYTES = 2 * 1024 * 1024;

export interface WorkspaceText {
  text: string;
  /** The file is larger than MAX_READ_BYTES and `text` is its beginning. */
  cut: boolean;
}

/**
 * A workspace file's text through the guarded file access, or the error result to return: missing,
 * outside the workspace, refused (a link out, a secret, a FIFO, .git) or binary. Never reads more
 * than MAX_READ_BYTES + 1 bytes, whatever the file's size.
 */
export async function readWorkspaceText(deps: Pick<ToolDependencies, 'wiki' | 'files'>, relPath: string): Promise<WorkspaceText | ToolResult> {
  const outside = outsideReason(relPath);
  if (outside) return failure(`${relPath} ${outside}; paths are relative to the workspace folder, and Repo Wiki reads nothing outside it.`, 'refused: outside the workspace');
  let bytes: Uint8Array;
  try {
    bytes = await deps.files.readFile(path.join(deps.wiki.root, relPath), { maxBytes: MAX_READ_BYTES + 1, truncate: true });
  } catch (error) {
    if (isNotAFile(error)) return failure(`${relPath} does not exist or is not a file. Use find_symbol or grep_code to find where code lives.`, 'not found');
    if (isFileAccessError(error)) return refused(error);
    throw error;
  }
  if (bytes.subarray(0, 8192).includes(0)) return failure(`${relPath} is a binary file; Repo Wiki reads text only.`, 'refused: binary');
  const cut = bytes.length > MAX_READ_BYTES;
  return { text: new TextDecoder().decode(cut ? bytes.subarray(0, MAX_READ_BYTES) : bytes), cut };
}

export function isResult(value: WorkspaceText | ToolResult): value is ToolResult {
  return 'ok' in value;
}

/** Why a workspace-relative path given by a model is not one, or undefined when it is. */
export function outsideReason(relPath: string): string | undefined {
  if (path.isAbsolute(relPath) || /^([A-Za-z]:|~)/.test(relPath) || relPath.startsWith('\\')) return 'is an absolute path';
  if (relPath.split(/[\\/]/).includes('..')) return 'climbs out with ..';
  return undefined;
}

/** A file's declarations, or 'too-deep' when it is nested deeper than the parser's stack (1,000 nested parentheses in TypeScript). */
export async function declarationsOf(deps: Pick<ToolDependencies, 'symbolsOf'>, relPath: string, text: string): Promise<readonly SourceSymbol[] | 'too-deep'> {
  try {
    return await deps.symbolsOf(relPath, text);
  } catch (error) {
    if (isStackOverflow(error)) return 'too-deep';
    throw error;
  }
}
