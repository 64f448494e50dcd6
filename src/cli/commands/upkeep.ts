import type { LocalCore } from '../../adapters/localCore';
import { UPKEEP_DEFAULTS } from '../../core/defaults';
import { lastChanged } from '../../core/pages/pageAge';
import type { UpkeepPlan } from '../../core/upkeep/upkeep';
import type { CliCommand } from '../command';
import type { Io } from '../io';
import { pageHistory } from '../pageAges';

/** `repo-wiki upkeep`: see `upkeepCommand`. */
export const upkeep: CliCommand = {
  name: 'upkeep',
  summary: 'mark pages citing deleted code stale, archive idle pages',
  description: 'Pages it marked stale become active again when their code is back; stale and superseded pages untouched for --archive-after-days are archived. Then the index is rebuilt and what changed is logged.',
  usage: '',
  workspace: 'wiki',
  formats: ['text', 'json'],
  options: [
    { name: 'dry-run', description: 'print the plan and write nothing' },
    { name: 'archive-after-days', value: 'N', default: String(UPKEEP_DEFAULTS.archiveAfterDays), description: 'archive stale and superseded pages untouched this long' },
  ],
  async run({ format, flag, value, core }, io) {
    const days = Number(value('archive-after-days'));
    if (!(Number.isInteger(days) && days >= 0)) {
      io.err('--archive-after-days must be a whole number of days (0 or more).');
      return 2;
    }
    return upkeepCommand(await core(), { dryRun: flag('dry-run'), json: format === 'json', archiveAfterDays: days }, io);
  },
};

/**
 * `repo-wiki upkeep`: marks pages citing code that no longer exists stale, brings back the ones
 * upkeep marked whose code is back, archives long-idle stale and superseded pages, rebuilds the
 * index and logs what changed. `--dry-run` prints the same and writes nothing.
 */
export async function upkeepCommand(core: LocalCore, options: { dryRun: boolean; json: boolean; archiveAfterDays?: number }, io: Io): Promise<number> {
  const { isEmptyPlan, runUpkeep, upkeepSummary } = await import('../../core/upkeep/upkeep');
  const { wiki, engine } = core;
  const today = new Date().toISOString().slice(0, 10);
  const archiveAfterDays = options.archiveAfterDays ?? UPKEEP_DEFAULTS.archiveAfterDays;
  const { plan, pagesChecked, result } = await runUpkeep(wiki, { check: (pages) => engine.check(pages), lastChanged: async () => lastChanged(await pageHistory(wiki)) }, { today, archiveAfterDays, dryRun: options.dryRun });
  if (options.json) {
    io.out(JSON.stringify({ dryRun: options.dryRun, ...plan, written: result?.pages ?? [], indexRebuilt: result?.indexChanged ?? false }, null, 2));
    return 0;
  }
  for (const line of planLines(plan)) io.out(line);
  const summary = upkeepSummary(plan);
  if (options.dryRun) io.out(`Upkeep (dry run, nothing written): ${summary}.`);
  else io.out(isEmptyPlan(plan) ? `Upkeep: nothing to change in ${pagesChecked} pages${result?.indexChanged ? '; the index was rebuilt' : ''}.` : `Upkeep: ${summary}; logged.`);
  return 0;
}

function planLines(plan: UpkeepPlan): string[] {
  const at = (slug: string) => `.wiki/pages/${slug}.md`;
  return [
    ...plan.stale.map(({ slug, citations }) => `stale        ${at(slug)}  cited code no longer exists: ${citations.join(', ')}`),
    ...plan.restaled.map(({ slug, citations }) => `still stale  ${at(slug)}  cited code no longer exists: ${citations.join(', ')}`),
    ...plan.reactivated.map((slug) => `active again ${at(slug)}  every citation resolves again`),
    ...plan.archived.map(({ slug, was, idleDays }) => `archived     ${at(slug)}  ${was}, untouched for ${idleDays} days`),
  ];
}
