import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RepoWikiApi } from '../../../src/extension';
import { PagesTreeProvider } from '../../../src/vscode/pages/pagesTree';
import type { WikiScmHooks } from '../../../src/vscode/scm/wikiSourceControl';
import { activateExtension, waitFor, workspaceRoot } from '../helpers';

describe('A wiki for a team: git in the real extension host', () => {
  let root: string;
  let api: RepoWikiApi;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });

  before(async () => {
    root = workspaceRoot();
    api = await activateExtension();
  });

  it('lists changed wiki files in the Source Control view and commits only .wiki/ with the typed message', async () => {
    const scm = api.hooks.scm as WikiScmHooks;
    fs.writeFileSync(path.join(root, 'unrelated.txt'), 'work in progress\n');
    fs.appendFileSync(path.join(root, '.wiki', 'pages', 'header-names-are-lower-cased.md'), '\nA note for the team.\n');
    await waitFor('the change in the Source Control view', async () => {
      await scm.refresh();
      return scm.changes(root).includes('.wiki/pages/header-names-are-lower-cased.md');
    });
    const result = await vscode.commands.executeCommand<{ files: string[] }>('repoWiki.scmCommit', root);
    assert.ok(result?.files.includes('.wiki/pages/header-names-are-lower-cased.md'));
    assert.match(git('log', '-1', '--name-only', '--format=%s'), /\.wiki\/pages\/header-names-are-lower-cased\.md/);
    assert.doesNotMatch(git('log', '-1', '--name-only', '--format=%s'), /unrelated\.txt/);
    assert.match(git('status', '--porcelain'), /\?\? unrelated\.txt/, 'other work is left alone');
    await scm.refresh();
    assert.deepEqual(scm.changes(root).filter((p) => p.includes('header-names')), []);
  });

  it('repairs an index a merge left with conflict markers as soon as it sees them', async () => {
    const index = path.join(root, '.wiki', 'index.json');
    const clean = fs.readFileSync(index, 'utf8');
    fs.writeFileSync(index, `<<<<<<< HEAD\n${clean}=======\n{"version": 1, "pages": []}\n>>>>>>> theirs\n`);
    await waitFor('the index regenerated from the pages', () => fs.readFileSync(index, 'utf8') === clean);
  });

  it('"Repair wiki index after a merge" regenerates an index left with conflict markers', async () => {
    const markdown = path.join(root, '.wiki', 'index.md');
    fs.writeFileSync(markdown, `<<<<<<< HEAD\n${fs.readFileSync(markdown, 'utf8')}=======\n# Index\n>>>>>>> theirs\n`);
    const result = await vscode.commands.executeCommand<{ conflicted: string[]; pages: number }>('repoWiki.repairIndex');
    assert.deepEqual(result?.conflicted, ['.wiki/index.md']);
    assert.doesNotMatch(fs.readFileSync(markdown, 'utf8'), /<<<<<<<|>>>>>>>/);
  });

  it('installs the pre-commit drift check from the command', async () => {
    const result = await vscode.commands.executeCommand<{ path: string; action: string }>('repoWiki.installHook');
    assert.equal(result?.action, 'created');
    assert.match(fs.readFileSync(result!.path, 'utf8'), /repo-wiki drift --format text/);
  });

  it('installs the index merge driver from the command, so git uses it for the catalog', async () => {
    const result = await vscode.commands.executeCommand<{ driver: string; attributes: string }>('repoWiki.installMergeDriver');
    assert.equal(result?.driver, 'installed');
    assert.match(git('config', '--get', 'merge.repo-wiki-index.driver'), /index merge %O %A %B %P/);
    assert.equal(git('check-attr', 'merge', '.wiki/index.json').trim(), '.wiki/index.json: merge: repo-wiki-index');
  });

  it('gives pages an age from git history', async () => {
    const wiki = api.services.wikis.all()[0];
    await wiki.createPage({ title: 'Not committed yet' });
    const { pages } = await api.services.snapshots.reload(wiki);
    const tags = await api.services.ages.tags(wiki, pages);
    // The workspace copy was committed moments ago; the new page is not in git at all.
    assert.match(tags.get('testing-handlers-in-process') ?? '', /^recently added( \(\+\d+\))?$/);
    assert.equal(tags.get('not-committed-yet'), 'age unknown');
    // The Pages tree shows them in each page's description and hover.
    const tree = new PagesTreeProvider(api.services);
    const topics = await tree.getChildren();
    const items = (await Promise.all(topics.map((topic) => tree.getChildren(topic)))).flat().map((node) => tree.getTreeItem(node));
    const item = items.find((i) => i.label === 'Testing handlers in process')!;
    assert.match(String(item.description), /^recently added( \(\+\d+\))? · /);
    assert.match((item.tooltip as vscode.MarkdownString).value, /recently(&nbsp;| )added/);
    assert.match(String(items.find((i) => i.label === 'Not committed yet')!.description), /^age unknown · /);
  });
});
