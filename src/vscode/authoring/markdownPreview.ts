import * as fs from 'node:fs';
import type MarkdownIt = require('markdown-it');
import * as vscode from 'vscode';
import { wikiPreviewPlugin, type PreviewLocation } from '../../core/authoring';
import type { Services } from '../services/services';

/**
 * `extendMarkdownIt` for VS Code's markdown preview: `[[links]]` and code citations become links
 * relative to the document being rendered, in a workspace folder that has a wiki. The preview
 * passes that document in `env.currentDocument`.
 */
export function extendMarkdownIt(services: Pick<Services, 'wikis'>): (md: ReturnType<typeof MarkdownIt>) => ReturnType<typeof MarkdownIt> {
  // One render asks once per link; the answer holds for the whole render (one `env`).
  const located = new WeakMap<object, PreviewLocation | undefined>();
  const locate = (env: unknown): PreviewLocation | undefined => {
    if (typeof env !== 'object' || env === null) return undefined;
    if (!located.has(env)) located.set(env, locateDocument(env));
    return located.get(env);
  };
  const locateDocument = (env: object): PreviewLocation | undefined => {
    // A Uri of the markdown extension's own copy of the API: read it by its fields.
    const document = (env as { currentDocument?: { scheme?: unknown; fsPath?: unknown } }).currentDocument;
    if (document?.scheme !== 'file' || typeof document.fsPath !== 'string') return undefined;
    const wiki = services.wikis.forUri(vscode.Uri.file(document.fsPath));
    // Rendering is synchronous; a folder without a wiki keeps its [[brackets]] as text.
    if (!wiki || !fs.existsSync(wiki.pagesDir)) return undefined;
    return { documentPath: wiki.relative(document.fsPath), pagesDir: wiki.relative(wiki.pagesDir) };
  };
  return (md) => md.use(wikiPreviewPlugin, { locate });
}
