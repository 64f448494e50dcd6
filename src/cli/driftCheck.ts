// The drift pass `repo-wiki drift` runs, and `lint --fix` before its fixes.
import * as path from 'node:path';
import { filesChangedSince, headCommit, pagesMentioning } from '../adapters/git/gitChanges';
import type { LocalCore } from '../adapters/localCore';
import { DriftCode } from '../core/drift/driftCodes';
import { citationsOf, pagesCiting, type Citation } from '../core/drift/citations';
import type { DriftIssue, DriftReport } from '../core/drift/driftEngine';
import { relocateCitation } from '../core/pages/pageEdits';
import { relocatedCitation } from '../core/drift/relocation';
import type { Wiki } from '../core/wiki/wiki';
import { stampPage } from '../core/drift/stamp';
import { WikiError } from '../core/errors';
import type { WikiPage } from '../core/model';

/**
 * One drift pass over the whole wiki. With `stamp`, citations without an anchor are stamped first;
 * `review` names pages a person has checked against the code: every citation on them that
 * resolves is stamped again, so drift they have seen stops being reported. A refused stamp (a
 * log that is a link, the wiki busy, a page that does not exist) is returned, and the check still runs.
 * With `changed` (workspace-relative paths), only what the change touches is checked: edited pages,
 * and the citations whose symbol resolves through a changed file (its own file, or a changed file
 * behind a barrel among `barrels`); a citation that resolves through no changed file cannot have drifted by it.
 */
export async function checkDrift({ wiki, engine }: LocalCore, options: { stamp: boolean; review?: readonly string[]; changed?: readonly string[]; barrels?: readonly string[]; candidates?: readonly string[]; fix?: boolean }): Promise<{ report: DriftReport; stamped: number; dropped: number; fixed: string[]; stampError?: WikiError }> {
  const review = options.review ?? [];
  const stamping = options.stamp || review.length > 0;
  const cited = options.changed && [...options.changed, ...(options.barrels ?? [])];
  // Only the pages that mention a changed path (or a barrel of one) can cite it: the rest are not even parsed, nor read when `candidates` names the pages to read.
  let pages = await wiki.loadPages(cited && !stamping ? { mentioning: cited, slugs: options.candidates } : {});
  let stamped = 0;
  let dropped = 0;
  const count = (result: { stamped: string[]; dropped?: string[] }) => {
    stamped += result.stamped.length;
    dropped += result.dropped?.length ?? 0;
  };
  let stampError: WikiError | undefined;
  if (stamping) {
    const verifiedAt = await headCommit(wiki.root);
    try {
      for (const slug of review) {
        const page = pages.find((p) => p.slug === slug);
        if (!page) throw new WikiError('invalid-page', `There is no page "${slug}" to review.`, 'Name a page by its slug, as in .wiki/pages/<slug>.md.');
        count(await stampPage(wiki, engine, page, { verifiedAt }));
      }
      if (options.stamp) for (const page of pages.filter((p) => p.valid && !review.includes(p.slug))) count(await stampPage(wiki, engine, page, { onlyMissing: true, verifiedAt }));
      if (stamped || dropped) await wiki.rebuildIndex();
    } catch (error) {
      if (!(error instanceof WikiError)) throw error;
      stampError = error;
    }
    if (stamped || dropped) pages = await wiki.loadPages();
  }
  let checked = cited ? onlyTouched(pages, cited) : pages;
  const only = options.changed && (await changedCitations(engine, checked, options.changed, options.barrels ?? []));
  let report = await engine.check(checked, undefined, only);
  const fixed = options.fix ? await updateCitations(wiki, checked, report.issues) : [];
  if (fixed.length) {
    const again = new Set(checked.map((page) => page.slug));
    checked = await wiki.loadPages({ slugs: [...again] });
    report = await engine.check(checked, undefined, only);
  }
  return { report, stamped, dropped, fixed, ...(stampError ? { stampError } : {}) };
}

/** `--fix`: points citations of moved and renamed symbols, and of moved lines, at where the code is now. Returns `old → new` per fix. */
async function updateCitations(wiki: Wiki, pages: WikiPage[], issues: readonly DriftIssue[]): Promise<string[]> {
  const fixed: string[] = [];
  for (const issue of issues) {
    const to = relocatedCitation(issue);
    const page = to && pages.find((p) => p.relPath === issue.page);
    if (!to || !page) continue;
    const current = (await wiki.readPage(page.slug)) ?? page;
    if (await relocateCitation(wiki, current, issue.data.citation, to, issue.code === DriftCode.RenamedSymbol ? issue.data.anchor : undefined)) fixed.push(`${page.slug}: ${issue.data.citation} → ${to}`);
  }
  return fixed;
}

/**
 * What `--changed-since REF` checks: the files changed since REF and, unless the run stamps (which
 * reads every page anyway), the only pages that can be touched: those one `git grep` finds
 * mentioning a changed file, and the changed pages themselves.
 */
export async function changedSince({ wiki, parser, engine }: Pick<LocalCore, 'wiki' | 'parser' | 'engine'>, ref: string, stamping: boolean): Promise<{ changed: string[]; barrels: string[]; candidates?: string[] }> {
  const changed = await filesChangedSince(wiki.root, ref);
  // The changed files' grammars compile while git searches the pages and they are read. Settled: a
  // grammar that cannot load fails the check that needs it, with its own error.
  void Promise.allSettled(changed.map((file) => parser.prepare(file)));
  // A page citing `src/index.ts:isHTTPError` checks the file index.ts re-exports it from.
  const barrels = await engine.reExportersOf(changed);
  if (stamping) return { changed, barrels };
  return { changed, barrels, candidates: [...(await pagesMentioning(wiki.root, wiki.pagesDir, [...changed, ...barrels])), ...editedPages(wiki, changed)] };
}

/** The slugs of the pages among changed paths. */
function editedPages(wiki: Wiki, changed: readonly string[]): string[] {
  const folder = wiki.relative(wiki.pagesDir);
  return changed.filter((file) => path.posix.dirname(file) === folder && file.endsWith('.md')).map((file) => path.posix.basename(file, '.md'));
}

/** What a change can have made wrong: every citation of an edited page, citations into a changed file, and those a barrel resolves to one. */
async function changedCitations(engine: LocalCore['engine'], pages: readonly WikiPage[], changed: readonly string[], barrels: readonly string[]): Promise<(citation: Citation, page: WikiPage) => boolean> {
  const paths = new Set(changed);
  const barrelPaths = new Set(barrels);
  const behindBarrel = new Set<Citation>();
  for (const page of pages) {
    for (const citation of citationsOf(page)) {
      if (!citation.symbol || citation.outside || paths.has(citation.path) || !barrelPaths.has(citation.path)) continue;
      if ((await engine.resolvedThrough(citation)).some((file) => paths.has(file))) behindBarrel.add(citation);
    }
  }
  return (citation, page) => paths.has(page.relPath) || paths.has(citation.path) || behindBarrel.has(citation);
}

/** The pages a change touches: those edited, and those citing a changed file. */
function onlyTouched(pages: WikiPage[], changed: readonly string[]): WikiPage[] {
  const paths = new Set(changed);
  const citing = new Set(pagesCiting(pages, paths));
  return pages.filter((page) => paths.has(page.relPath) || citing.has(page));
}
