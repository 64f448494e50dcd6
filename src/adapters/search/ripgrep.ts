import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { findOnPath, firstExecutable } from '../files/fileKinds';
import { CodeSearchError, type CodeMatch, type CodeSearch, type GrepOptions, type GrepResult } from '../../core/tools/codeSearch';
import { globMatcher, type PathMatcher } from './glob';

export { globMatcher, type PathMatcher } from './glob';

const DEFAULT_TIMEOUT_MS = 10_000;
/** Lines one file contributes at most, so one generated file does not fill the result. */
const MAX_MATCHES_PER_FILE = 20;
const STDERR_KEPT = 4096;

/**
 * Flags of every search: no user config (it could add `--follow` or `--no-ignore`), hidden files
 * searched but `.git` and local state not, links never followed, `.gitignore` honoured even
 * outside a git repository, large files skipped. Negative globs only exclude: a positive one
 * would override `.gitignore`, so a glob from a model is applied through a type and a filter.
 */
const BASE_ARGS = [
  '--no-config', '--hidden', '--no-follow', '--no-require-git', '--max-filesize=1M', '--color=never',
  '--glob=!.git', '--glob=!node_modules', '--glob=!.wiki/.cache',
];

const NOT_FOUND_HINT =
  'no rg program was found (tried $REPO_WIKI_RIPGREP, the ripgrep that ships with VS Code, and rg on the PATH). ' +
  'Install ripgrep (Debian/Ubuntu: apt-get install ripgrep; macOS: brew install ripgrep; Windows: winget install BurntSushi.ripgrep.MSVC), ' +
  'or set REPO_WIKI_RIPGREP to the path of an rg program.';

/**
 * The rg program to run: `REPO_WIKI_RIPGREP`, then VS Code's own (under `appRoot`, i.e.
 * `vscode.env.appRoot`), then rg on the PATH; undefined when there is none.
 */
export function findRipgrep(options: { appRoot?: string; env?: NodeJS.ProcessEnv } = {}): string | undefined {
  const env = options.env ?? process.env;
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const bundled = options.appRoot ? ['node_modules', 'node_modules.asar.unpacked'].map((dir) => path.join(options.appRoot!, dir, '@vscode', 'ripgrep', 'bin', exe)) : [];
  return firstExecutable([env.REPO_WIKI_RIPGREP, ...bundled]) ?? findOnPath('rg', env);
}

/** CodeSearch over one workspace folder by spawning ripgrep; every search is capped in output and time. */
export class RipgrepSearch implements CodeSearch {
  private readonly root: string;

  constructor(
    root: string,
    private readonly options: { rgPath?: string; appRoot?: string; timeoutMs?: number } = {},
  ) {
    this.root = path.resolve(root);
  }

  async grep(pattern: string, { glob, maxMatches, signal }: GrepOptions): Promise<GrepResult> {
    // Checked before rg starts: a glob too long or malformed is a bad-input error, not a search.
    const inGlob = glob ? memoized(globMatcher(glob)) : undefined;
    const args = [
      ...BASE_ARGS, ...typeArgs(glob ? [lastSegment(glob)] : []),
      '--null', '--line-number', '--no-heading', '--with-filename', `--max-count=${MAX_MATCHES_PER_FILE}`, '--max-columns=1000', '--max-columns-preview',
      `--regexp=${pattern}`, '--', '.',
    ];
    const matches: CodeMatch[] = [];
    let truncated = false;
    const { timedOut } = await this.run(args, signal, (line) => {
      const match = parseMatch(line);
      if (!match || (inGlob && !inGlob.test(match.path))) return true;
      if (matches.length === maxMatches) {
        truncated = true;
        return false;
      }
      matches.push(match);
      return true;
    });
    matches.sort((a, b) => (a.path === b.path ? a.line - b.line : a.path < b.path ? -1 : 1));
    return { matches, truncated, timedOut };
  }

  async filesContaining(word: string, { extensions, maxFiles, signal }: { extensions: readonly string[]; maxFiles: number; signal?: AbortSignal }): Promise<{ files: string[]; truncated: boolean }> {
    const args = [...BASE_ARGS, ...typeArgs(extensions.map((ext) => `*${ext}`)), '--files-with-matches', '--fixed-strings', '--word-regexp', `--regexp=${word}`, '--', '.'];
    const files: string[] = [];
    let truncated = false;
    await this.run(args, signal, (line) => {
      if (!line) return true;
      if (files.length === maxFiles) {
        truncated = true;
        return false;
      }
      files.push(relative(line));
      return true;
    });
    return { files, truncated };
  }

  /**
   * Every file (workspace-relative) that contains any of `words` as plain text, files up to 2 MB
   * (as the drift engine's own search reads them), no cap on their number: the drift engine's
   * candidates for moved symbols and barrels, found without reading every source file in Node.
   */
  async filesContainingAny(words: readonly string[], signal?: AbortSignal): Promise<string[]> {
    const args = [...BASE_ARGS.filter((arg) => !arg.startsWith('--max-filesize')), '--max-filesize=2M', '--files-with-matches', '--fixed-strings', ...words.map((word) => `--regexp=${word}`), '--', '.'];
    const files: string[] = [];
    const { timedOut } = await this.run(args, signal, (line) => {
      if (line) files.push(relative(line));
      return true;
    });
    if (timedOut) throw new CodeSearchError('unavailable', `ripgrep took longer than ${(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s`);
    return files;
  }

  private binary(): string {
    const found = this.options.rgPath ?? findRipgrep({ appRoot: this.options.appRoot });
    if (!found) throw new CodeSearchError('unavailable', NOT_FOUND_HINT);
    return found;
  }

  /** Runs rg, handing each output line to `onLine` until it returns false; stops it at the timeout or on abort. */
  private run(args: string[], signal: AbortSignal | undefined, onLine: (line: string) => boolean): Promise<{ timedOut: boolean }> {
    const binary = this.binary();
    signal?.throwIfAborted();
    return new Promise((resolve, reject) => {
      const child = spawn(binary, args, { cwd: this.root, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
      let stopped = false;
      let timedOut = false;
      let pending = '';
      let stderr = '';
      const stop = () => {
        if (stopped) return;
        stopped = true;
        child.kill();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      signal?.addEventListener('abort', stop, { once: true });
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', stop);
      };
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        if (stopped) return;
        const lines = (pending + chunk).split('\n');
        pending = lines.pop()!;
        for (const line of lines) if (!onLine(line)) return stop();
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        if (stderr.length < STDERR_KEPT) stderr += chunk;
      });
      child.on('error', (error: NodeJS.ErrnoException) => {
        done();
        reject(error.code === 'ENOENT' ? new CodeSearchError('unavailable', NOT_FOUND_HINT) : error);
      });
      child.on('close', (code) => {
        done();
        if (signal?.aborted) return reject(signal.reason);
        if (!stopped && pending) onLine(pending);
        // Exit 2 is also an unreadable file among results; only a pattern or glob rg rejects fails the search.
        if (code === 2 && /regex parse error|error parsing glob|literal .* not allowed|unrecognized/i.test(stderr)) {
          return reject(new CodeSearchError('bad-input', `ripgrep rejected the pattern: ${stderr.trim().split('\n').slice(0, 8).join('\n')}`));
        }
        resolve({ timedOut });
      });
    });
  }
}

/** `./src/a.ts\01:text` (rg --null --line-number) as a match; undefined for anything else. */
function parseMatch(line: string): CodeMatch | undefined {
  const nul = line.indexOf('\0');
  const colon = line.indexOf(':', nul);
  if (nul < 0 || colon < 0) return undefined;
  const number = Number(line.slice(nul + 1, colon));
  if (!Number.isInteger(number)) return undefined;
  return { path: relative(line.slice(0, nul)), line: number, text: line.slice(colon + 1).replace(/\r$/, '') };
}

function relative(rgPath: string): string {
  return rgPath.replace(/^\.\//, '').split(path.sep).join('/');
}

/** A file-name type for rg, which narrows the files searched without overriding `.gitignore` as `--glob` would. */
function typeArgs(nameGlobs: readonly string[]): string[] {
  const usable = nameGlobs.filter((glob) => !glob.includes(':') && !glob.includes('**'));
  if (!usable.length || usable.length < nameGlobs.length) return [];
  return [...usable.map((glob) => `--type-add=repowikiglob:${glob}`), '--type=repowikiglob'];
}

function lastSegment(glob: string): string {
  return glob.split('/').pop()!;
}

/** One answer per path: a file contributes up to MAX_MATCHES_PER_FILE lines, and its path is tested once. */
function memoized(matcher: PathMatcher): PathMatcher {
  const answers = new Map<string, boolean>();
  return {
    test(file) {
      let answer = answers.get(file);
      if (answer === undefined) answers.set(file, (answer = matcher.test(file)));
      return answer;
    },
  };
}
