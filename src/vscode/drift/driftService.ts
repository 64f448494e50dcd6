import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DriftClient } from '../../adapters/drift/driftClient';
import type { DriftIssue } from '../../core/drift/driftEngine';
import type { Wiki } from '../../core/wiki';
import { FolderDiagnostics } from '../diagnostics';
import type { Services } from '../services';

/** Runs drift checks in the worker and publishes them; remembers the latest issues for quick fixes. */
export class DriftService implements vscode.Disposable {
  private readonly diagnostics = new FolderDiagnostics('repo-wiki-drift', 'repoWiki.drift.severities');
  private readonly issues = new Map<string, DriftIssue[]>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly services: Services) {}

  worker(): Promise<DriftClient> {
    return this.services.driftWorker();
  }

  /** Checks the wiki, or only `slugs`; `texts` are unsaved page contents to check instead of the files. */
  async check(wiki: Wiki, options: { slugs?: string[]; texts?: Record<string, string>; signal?: AbortSignal } = {}): Promise<DriftIssue[]> {
    const client = await this.worker();
    const report = await client.request({ kind: 'check', root: wiki.root, slugs: options.slugs, texts: options.texts }, options.signal);
    if (options.signal?.aborted) return this.issues.get(wiki.root) ?? [];
    const previous = this.issues.get(wiki.root) ?? [];
    const checkedPages = options.slugs?.map((slug) => wiki.relative(wiki.pagePath(slug)));
    const kept = checkedPages ? previous.filter((issue) => !checkedPages.includes(issue.page)) : [];
    const issues = [...kept, ...(report.issues as DriftIssue[])];
    this.issues.set(wiki.root, issues);
    this.diagnostics.publish(wiki.root, report.issues, checkedPages);
    this.changed.fire();
    return issues;
  }

  async invalidate(wiki: Wiki, paths: string[], listChanged: boolean): Promise<void> {
    await (await this.worker()).request({ kind: 'invalidate', root: wiki.root, paths, listChanged });
  }

  /** Re-publishes the latest issues, e.g. after the severity settings changed. */
  republish(): void {
    for (const [root, issues] of this.issues) this.diagnostics.publish(root, issues);
  }

  /** The drift issue behind a diagnostic on a page. */
  issueAt(uri: vscode.Uri, range: vscode.Range, code: string): DriftIssue | undefined {
    const wiki = this.services.wikis.forUri(uri);
    if (!wiki) return undefined;
    const page = wiki.relative(uri.fsPath);
    return this.issues.get(wiki.root)?.find((issue) =>
      issue.page === page && issue.code === code && issue.range.start.line === range.start.line && issue.range.start.character === range.start.character);
  }

  count(): number {
    let total = 0;
    for (const issues of this.issues.values()) total += issues.filter((issue) => issue.code !== 'unverified').length;
    return total;
  }

  pageUri(wiki: Wiki, page: string): vscode.Uri {
    return vscode.Uri.file(path.join(wiki.root, page));
  }

  dispose(): void {
    this.diagnostics.dispose();
    this.changed.dispose();
  }
}
