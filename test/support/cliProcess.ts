import { spawn } from 'node:child_process';
import * as path from 'node:path';

/** The CLI as esbuild bundles it; the tests run it as a user would, in its own process. */
export const CLI = path.resolve(__dirname, '../../../dist/cli.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment variables that choose a model or reach one: a test sets the ones it means. */
const MODEL_ENVIRONMENT = ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'AZURE_OPENAI_API_KEY', 'AZURE_OPENAI_ENDPOINT', 'OPENAI_API_VERSION', 'OLLAMA_HOST', 'REPO_WIKI_MODEL', 'REPO_WIKI_CONTEXT_WINDOW'];

/** Runs `repo-wiki ARGS` with no model setting of the environment's unless `env` sets one. */
export function runCliProcess(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  const cleared = Object.fromEntries(MODEL_ENVIRONMENT.map((name) => [name, undefined]));
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...cleared, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
