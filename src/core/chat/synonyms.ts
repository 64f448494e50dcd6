import { stem } from './stem';

/**
 * Words a newcomer uses for what a wiki names differently ("log in" for sign-in, "company" for
 * tenant). Generic engineering vocabulary only: nothing here is specific to one codebase.
 */
const GROUPS = [
  'login signin authenticate authentication session',
  'logout signout',
  'company organisation organization tenant',
  'bill invoice',
  'refund reimburse',
  'password credential secret',
  'traffic load throughput capacity',
  'ship release deploy rollout',
  'cache cached caching',
  'exception error failure',
  'slow latency performance',
  'job task worker',
  'cron schedule scheduled periodic nightly',
  'upgrade update bump',
  'toggle flag switch',
  'permission scope role',
  'callback webhook notification',
  'relational postgres postgresql sql',
  'duplicate twice idempotent',
  'attach upload',
].map((group) => group.split(' '));

const RELATED = new Map<string, string[]>();
for (const group of GROUPS) {
  for (const word of group) RELATED.set(stem(word), group.filter((other) => stem(other) !== stem(word)));
}

/** Words to search besides the query's own, each with the stem of the query word it stands for. */
export function expansions(stems: readonly string[]): Map<string, string> {
  const added = new Map<string, string>();
  for (const queryStem of stems) {
    for (const word of RELATED.get(queryStem) ?? []) if (!stems.includes(stem(word)) && !added.has(word)) added.set(word, queryStem);
  }
  return added;
}
