import type { LocalCore } from '../../adapters/localCore';
import type { DriftIssue } from '../../core/drift/driftEngine';
import type { CliCommand } from '../command';
import { issueJson, issueLine, wikiErrors } from '../issues';

/** `repo-wiki drift`: every code citation checked against the code, or those a change touches. Exit 1 on a citation in error. */
export const drift: CliCommand = {
  name: 'drift',
  summary: 'check citations against the code; exits 1 on an error',
  description: 'A pages folder that leads out of the wiki is an error too. --format github prints GitHub Actions annotations.',
  usage: '',
  workspace: 'wiki',
  formats: ['text', 'json', 'github'],
  options: [
    { name: 'stamp', description: 'stamp citations that have no fingerprint yet' },
    { name: 'review', value: 'SLUG', repeatable: true, description: 'you checked this page against the code: stamp all its citations again, so the drift you saw is cleared' },
    { name: 'review-flagged', description: 'after a merge: list every page drift flags now (changed or unverified citations), ask, then review them all as --review does' },
    { name: 'yes', description: 'with --review-flagged: review without asking (needed without a terminal)' },
    { name: 'diff', description: 'under each changed citation, a unified diff of its code since the commit its page was verified at' },
    { name: 'semantic', description: 'also compare each cited symbol\'s resolved type (a ts-morph program over tsconfig.json), so a type changed through a callee is type-changed; stamping then records types' },
    { name: 'changed-since', value: 'REF', description: 'check only what changed since REF (from its merge base with HEAD, uncommitted changes included): edited pages, and citations into changed files' },
    { name: 'fix', description: 'point citations of moved and renamed symbols at where the code is now' },
  ],
  async run({ format, flag, value, values, core }, io) {
    const options = { stamp: flag('stamp'), review: values('review'), changedSince: value('changed-since'), fix: flag('fix'), diff: flag('diff') };
    const reviewFlagged = flag('review-flagged');
    if (flag('yes') && !reviewFlagged) {
      io.err('repo-wiki: drift --yes only answers --review-flagged\'s question; add --review-flagged, or leave --yes out.');
      return 2;
    }
    // As every command's heavier modules (git, the drift pass), loaded when it runs: each start of the CLI stays fast.
    const { changedSince, checkDrift } = await import('../driftCheck');
    const workspace = await core();
    const { wiki } = workspace;
    const stamp = options.stamp || options.review.length > 0 || reviewFlagged;
    const scope: { changed?: string[]; barrels?: string[]; candidates?: string[] } = options.changedSince === undefined ? {} : await changedSince(workspace, options.changedSince, stamp);
    const { changed } = scope;
    if (reviewFlagged) {
      const { report: flaggedReport } = await checkDrift(workspace, { stamp: false, ...scope });
      const { flaggedPages } = await import('../../core/drift/flagged');
      const flagged = flaggedPages(await wiki.loadPages(), flaggedReport.issues).filter((page) => !options.review.includes(page.slug));
      const say = (text: string) => (format === 'text' ? io.out(text) : io.err(text));
      if (!flagged.length) say('No page has drift a review clears (changed or unverified citations).');
      else {
        say(`Pages to review (${flagged.length}), and what drift flags on each:`);
        for (const page of flagged) say(`  ${page.relPath}  ${page.flags.map((f) => `${f.code} ${f.citation}`).join(', ')}`);
        if (!flag('yes')) {
          if (!process.stdin.isTTY) {
            io.err(`repo-wiki: drift --review-flagged stamps ${flagged.length} page${flagged.length === 1 ? '' : 's'} as reviewed and asks first, but there is no terminal to ask on. Check them against the code, then pass --yes to stamp them without asking.`);
            return 2;
          }
          const { confirm } = await import('../confirm');
          if (!(await confirm(`Have you checked these ${flagged.length} page${flagged.length === 1 ? '' : 's'} against the code, and stamp them as reviewed? [y/N] `))) {
            io.err('Nothing was stamped.');
            return 0;
          }
        }
        options.review.push(...flagged.map((page) => page.slug));
      }
    }
    const { report, stamped, dropped, fixed, stampError } = await checkDrift(workspace, { ...options, ...scope });
    if (stampError) io.err(`repo-wiki: drift ${options.review.length ? '--review' : '--stamp'}: ${stampError.userMessage}`);
    // A pages folder that leads out means no page was checked: an error, never a green run.
    const problems = await wikiErrors(wiki);
    const errors = problems.length + report.issues.filter((issue) => issue.severity === 'error').length;
    const diffs = options.diff ? await citationDiffs(workspace, report.issues) : new Map<DriftIssue, string>();
    if (format === 'json') {
      const ordered = report.issues.map((issue) => {
        const { page, line, column, code, severity, message } = issueJson(issue);
        return { page, line, column, citation: issue.data.citation, code, severity, message, ...(diffs.has(issue) ? { diff: diffs.get(issue) } : {}) };
      });
      io.out(JSON.stringify({ pagesChecked: report.pagesChecked, citationsChecked: report.citationsChecked, issues: ordered, ...(options.fix ? { fixed } : {}), ...(problems.length ? { problems: problems.map(issueJson) } : {}) }, null, 2));
    } else if (format === 'github') {
      for (const issue of [...problems, ...report.issues]) {
        const { line, column } = issueJson(issue);
        const level = issue.severity === 'error' ? 'error' : issue.severity === 'warning' ? 'warning' : 'notice';
        io.out(`::${level} file=${escapeProperty(issue.page)},line=${line},col=${column},title=${escapeProperty(`repo-wiki ${issue.code}`)}::${escapeData(issue.message)}`);
      }
    } else {
      for (const problem of problems) io.out(issueLine(problem));
      for (const issue of report.issues) {
        const { line, column } = issueJson(issue);
        io.out(`${issue.page}:${line}:${column}  ${issue.severity.padEnd(7)}  ${issue.code}  ${issue.data.citation}  ${issue.message}`);
        const diff = diffs.get(issue);
        if (diff) io.out(diff.trimEnd().split('\n').map((text) => `    ${text}`).join('\n'));
      }
      if (stamp) io.out(`Stamped ${stamped} citation${stamped === 1 ? '' : 's'}.`);
      if (dropped) io.out(`Dropped ${dropped} anchor${dropped === 1 ? '' : 's'} of citations no longer on their pages.`);
      for (const line of fixed) io.out(`Updated ${line}`);
      if (changed) io.out(`Only the pages touched by the ${changed.length} file${changed.length === 1 ? '' : 's'} changed since ${options.changedSince}.`);
      io.out(`${report.citationsChecked} citations in ${report.pagesChecked} pages checked: ${errors} error${errors === 1 ? '' : 's'}, ${report.issues.length - errors} other issue${report.issues.length - errors === 1 ? '' : 's'}.`);
    }
    return stampError ? 2 : errors ? 1 : 0;
  },
};

/** `--diff`: per changed citation (signature or body), a unified diff of its code since the commit it was verified at, or why there is none. */
export async function citationDiffs({ wiki, engine, root }: LocalCore, issues: readonly DriftIssue[]): Promise<Map<DriftIssue, string>> {
  const [{ citationDiffsOf }, { fileAtCommit }, { whatChanged }] = await Promise.all([import('../../core/drift/citationDiffs'), import('../../adapters/git/gitChanges'), import('../../core/drift/whatChanged')]);
  return citationDiffsOf(await wiki.loadPages(), issues, (citation, anchor) => whatChanged(engine, (commit, relPath) => fileAtCommit(root, commit, relPath), citation, anchor));
}

// GitHub Actions workflow-command escaping.
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
