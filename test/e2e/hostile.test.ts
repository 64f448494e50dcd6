import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { openWorkbenchSession, screenshotFailures, type WorkbenchSession } from './workbenchSession';

// A person opens a hostile clone (test/harness/hostileRepo.cjs) in a real workbench: the window
// loads, and the Problems panel names each bad file and why, in words a person can act on.
const ROOT = path.resolve(__dirname, '../../..');
const harness = (name: string) => require(path.join(ROOT, 'test', 'harness', name));
const { prepareWorkspace } = harness('ext-tests.cjs');
const { runCommand, screenshot } = harness('browser.cjs');
const { makeHostileRepo, snapshotOutside } = harness('hostileRepo.cjs');

describe('A hostile clone in a real VS Code workbench (installed from the .vsix)', function () {
  this.timeout(180000);
  let session: WorkbenchSession;
  let page: Page;
  let workspace: string;
  let outside: string;
  let outsideBefore: unknown;

  before(async () => {
    workspace = prepareWorkspace(path.join(ROOT, 'demo'));
    outside = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-wiki-e2e-outside-'));
    makeHostileRepo(workspace, { outside });
    outsideBefore = snapshotOutside(outside);
    session = await openWorkbenchSession(workspace);
    page = session.page;
  });

  screenshotFailures(() => page);

  after(async () => {
    await session?.stop();
    for (const dir of [workspace, outside]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lints the clone and shows each bad page and cited file in the Problems panel, saying why', async () => {
    await runCommand(page, 'Repo Wiki: Lint wiki');
    const toast = page.locator('.notification-toast', { hasText: /Repo Wiki: \d+ lint issues? in \d+ pages/ });
    await toast.waitFor({ timeout: 30000 });
    await toast.getByRole('button', { name: 'Show Problems' }).click();
    // Room for every row: the list only renders the rows in view.
    await runCommand(page, 'View: Toggle Maximized Panel');
    const problems = page.locator('.markers-panel');
    for (const text of [
      'fifo-page.md is a FIFO (named pipe), not a regular file',
      'passwd-link.md is, or lies inside, a symbolic link that leads out of .wiki',
      'only its first 32 KB are sent to the model',
      'src/fifo.ts is a FIFO (named pipe), not a regular file',
      'src/huge.ts is 3.0 GB, over the 16.0 MB Repo Wiki reads',
      'src/outside.ts is, or lies inside, a symbolic link that leads out of the workspace folder',
    ]) {
      await problems.getByText(text).first().waitFor({ timeout: 30000 });
    }
    await screenshot(page, 'hostile-problems-panel');
    assert.deepEqual(snapshotOutside(outside), outsideBefore, 'nothing outside the workspace changed');
  });
});
