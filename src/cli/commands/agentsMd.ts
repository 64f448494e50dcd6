import * as fs from 'node:fs';
import * as path from 'node:path';
import type { WorkspaceFiles } from '../../adapters/files/workspaceFiles';
import { agentFilesToWrite, agentsSection, AGENT_FILES, spliceAgentsSection, type SectionPlan } from '../../core/agents/agentsSection';
import { isMissing, WikiError } from '../../core/errors';
import type { CliCommand } from '../command';

/** An instruction file is prose for agents; anything larger is not one to edit. */
const MAX_INSTRUCTIONS_BYTES = 1024 * 1024;

const DONE: Record<SectionPlan['outcome'], string> = { created: 'Created', added: 'Added the section to', updated: 'Updated the section in', unchanged: 'Up to date:' };

/** `repo-wiki agents-md`: the marked Repo Wiki section in the agent instruction files, kept current. */
export const agentsMd: CliCommand = {
  name: 'agents-md',
  summary: 'write the wiki section of AGENTS.md and CLAUDE.md',
  description: `Every one of ${AGENT_FILES.join(', ')} that exists in the workspace folder gets the section (AGENTS.md is created when none does): where the wiki is, how to cite code, how to check drift, how to start the MCP server. Only the lines between the repo-wiki:start and repo-wiki:end markers are ever rewritten.`,
  usage: '',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [
    { name: 'check', description: 'write nothing; exit 1 when a file\'s section is missing or out of date (for CI)' },
    { name: 'dry-run', description: 'print what would change and the section, and write nothing' },
  ],
  async run({ wiki, format, flag }, io) {
    const { WorkspaceFiles } = await import('../../adapters/files/workspaceFiles');
    const files = new WorkspaceFiles(wiki.root, { syncReads: true });
    const found = await Promise.all(AGENT_FILES.map(async (file) => ((await files.stat(path.join(wiki.root, file)))?.isFile ? [file] : [])));
    const section = agentsSection();
    // Every file is planned before any is written: markers broken in one file leave all of them as they were.
    const plans: { file: string; target: string; plan: SectionPlan }[] = [];
    for (const file of agentFilesToWrite(found.flat())) {
      const target = await writableTarget(wiki.root, file);
      // CLAUDE.md is often a link to AGENTS.md: one file, written once.
      if (plans.some((planned) => planned.target === target)) continue;
      plans.push({ file, target, plan: spliceAgentsSection(await readText(files, target, file), section, file) });
    }
    const stale = plans.filter(({ plan }) => plan.outcome !== 'unchanged');
    const write = !flag('check') && !flag('dry-run');
    if (write) {
      for (const { target, plan } of stale) {
        await files.mkdir(path.dirname(target));
        await files.writeFileAtomic(target, plan.text);
      }
    }
    if (format === 'json') {
      io.out(JSON.stringify({ written: write, files: plans.map(({ file, plan }) => ({ path: file, outcome: plan.outcome })) }, null, 2));
    } else if (!stale.length) {
      io.out(`The Repo Wiki section is up to date in ${plans.map(({ file }) => file).join(', ')}; nothing written.`);
    } else if (write) {
      for (const { file, plan } of plans) io.out(`${DONE[plan.outcome]} ${file}`);
    } else {
      for (const { file, plan } of plans) io.out(plan.outcome === 'unchanged' ? `${file}: up to date` : `${file}: would be ${plan.outcome === 'added' ? 'given the section' : plan.outcome}`);
      if (flag('check')) io.out('Run "repo-wiki agents-md" to bring them up to date.');
      else io.out(`\n${section}`);
    }
    return flag('check') && stale.length ? 1 : 0;
  },
};

/**
 * Where to write `file`: the file itself, or, when it is a link to a file inside the workspace,
 * that file (the link stays a link). A link that leads out is returned as it is, for the guarded
 * write to refuse.
 */
async function writableTarget(root: string, file: string): Promise<string> {
  const absolute = path.join(root, file);
  try {
    const inside = path.relative(await fs.promises.realpath(root), await fs.promises.realpath(absolute));
    return inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside) ? absolute : path.join(root, inside);
  } catch (error) {
    if (isMissing(error)) return absolute;
    throw error;
  }
}

/** The file's text, undefined when it does not exist; a file that is not UTF-8 is refused rather than rewritten with its bytes mangled. */
async function readText(files: WorkspaceFiles, absolute: string, file: string): Promise<string | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await files.readFile(absolute, { maxBytes: MAX_INSTRUCTIONS_BYTES });
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
  const text = Buffer.from(bytes).toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(Buffer.from(bytes))) throw new WikiError('invalid-agents-section', `${file} is not UTF-8 text, so it was left as it is.`, 'Save it as UTF-8, then run repo-wiki agents-md again.');
  return text;
}
