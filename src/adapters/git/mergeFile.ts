import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConflictMarkers, TextMerge } from '../../core/pages/pageMerge';

/** Texts up to this size are merged; git merge-file reads whole files, and a page is far smaller. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/**
 * A three-way text merge by `git merge-file`: git's own line merge, with conflict markers labelled
 * and sized as `markers` says. The three texts go through files in a private temp folder.
 */
export function gitMergeFile(markers: ConflictMarkers): TextMerge {
  return async (base, ours, theirs) => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'repo-wiki-merge-'));
    try {
      const files = await Promise.all(Object.entries({ ours, base, theirs }).map(async ([name, text]) => {
        const file = path.join(dir, name);
        await fs.writeFile(file, text, { mode: 0o600 });
        return file;
      }));
      const args = ['merge-file', '-p', `--marker-size=${markers.size}`, '-L', markers.ours, '-L', 'base', '-L', markers.theirs, ...files];
      return await new Promise((resolve, reject) => {
        execFile('git', args, { encoding: 'utf8', maxBuffer: MAX_OUTPUT_BYTES }, (error, stdout, stderr) => {
          // merge-file exits with the number of conflicts (capped at 127); a negative status (255 and up here) is a failure.
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          if (code >= 0 && code < 128) resolve({ text: stdout, conflicted: code > 0 });
          else reject(new Error(`git merge-file failed: ${stderr.trim() || error?.message}`));
        });
      });
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  };
}
