import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const made: string[] = [];

/** A new folder in the temp directory, removed when the test run ends. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

// A root hook: the folders of every test file go once the whole run is done.
after(function () {
  this.timeout(60_000); // corpora of real code among them: more than mocha's 2 s on a busy machine
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
