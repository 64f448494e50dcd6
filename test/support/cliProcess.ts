import { spawn } from 'node:child_process';
import * as path from 'node:path';

/** The CLI as esbuild bundles it; the tests run it as a user would, in its own process. */
export const CLI = path.resolve(__dirname, '../../../dist/cli.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `repo-wiki ARGS` with no API key of the environment's unless `env` sets one. */
export function runCliProcess(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: undefined, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
