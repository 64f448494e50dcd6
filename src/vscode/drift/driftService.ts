import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScopedDriftReport } from '../../core/drift/driftBackend';
import { pagesCiting } from '../../core/drift/citations';
import type { DriftIssue } from '../../core/drift/driftEngine';
import { replaceIssues } from '../../core/drift/issueScope';
import type { Wiki } from '../../core/wiki/wiki';
import { FolderDiagnostics } from '../common/diagnostics';
import type { Services } from '../services/services';

/** Runs drift checks (in the worker, through each folder's core) and publishes them; the one store of the latest issues, by folder and page. */
export class DriftService implements vscode.Disposable {
  private readonly diagnostics = new FolderDiagnostics('repo-wiki-drift', 'repoWiki.drift.severities');
  private readonly issues = new Map<string, Map<string, DriftIssue[]>>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly services: Services) {}

  /** Checks the wiki, or only `slugs`; `texts` are unsaved page contents to check instead of the files. */
  async check(wiki: Wiki, options: { slugs?: string[]; texts?: Record<string, string>; signal?: AbortSignal } = {}): Promise<DriftIssue[]> {
    const report = await this.services.cores.of(wiki).drift.check({ slugs: options.slugs, texts: options.texts }, options.signal);
    if (options.signal?.aborted) return this.all(wiki.root);
    return this.apply(wiki.root, report);
  }

  /** Source files changed: one request forgets them and re-checks the pages that cite them, named from the wiki snapshot so the worker reads only those. */
  async sourcesChanged(wiki: Wiki, paths: string[], listChanged: boolean): Promise<void> {
    const citing = listChanged ? undefined : pagesCiting((await this.services.snapshots.get(wiki)).pages, new Set(paths)).map((page) => page.slug);
    this.apply(wiki.root, await this.services.cores.of(wiki).drift.sourcesChanged({ paths, listChanged, citing }));
  }

  /** Drops the issues of pages that no longer exist. */
  forget(wiki: Wiki, pages: string[]): void {
    this.apply(wiki.root, { pagesChecked: 0, citationsChecked: 0, issues: [], pages });
  }

  /** Re-publishes the latest issues, e.g. after the severity settings changed. */
  republish(): void {
    for (const root of this.issues.keys()) this.diagnostics.publish(root, this.all(root));
  }

  /** Replaces the issues the report covers (see replaceIssues). */
  private apply(root: string, report: ScopedDriftReport): DriftIssue[] {
    this.issues.set(root, replaceIssues(this.issues.get(root), report));
    const issues = this.all(root);
    this.diagnostics.publish(root, issues);
    this.changed.fire();
    return issues;
  }

  private all(root: string): DriftIssue[] {
    return [...(this.issues.get(root)?.values() ?? [])].flat();
  }

  /** The drift issue behind a diagnostic on a page. */
  issueAt(uri: vscode.Uri, range: vscode.Range, code: string): DriftIssue | undefined {
    const wiki = this.services.wikis.forUri(uri);
    if (!wiki) return undefined;
    const page = wiki.relative(uri.fsPath);
    return this.issues.get(wiki.root)?.get(page)?.find((issue) =>
      issue.code === code && issue.range.start.line === range.start.line && issue.range.start.character === range.start.character);
  }

  count(): number {
    let total = 0;
    for (const root of this.issues.keys()) total += this.all(root).filter((issue) => issue.code !== 'unverified').length;
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
