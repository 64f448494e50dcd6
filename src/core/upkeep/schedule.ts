export const UPKEEP_INTERVALS = ['off', 'daily', 'weekly'] as const;
export type UpkeepInterval = (typeof UPKEEP_INTERVALS)[number];

const HOUR_MS = 60 * 60 * 1000;
const INTERVAL_MS: Record<Exclude<UpkeepInterval, 'off'>, number> = { daily: 24 * HOUR_MS, weekly: 7 * 24 * HOUR_MS };

/** Whether a scheduled upkeep is due: never when off, at once when it never ran, else once the interval has passed. */
export function upkeepDue(interval: UpkeepInterval, lastRunMs: number | undefined, nowMs: number): boolean {
  if (interval === 'off') return false;
  if (lastRunMs === undefined || lastRunMs > nowMs) return true; // a clock set back must not stop upkeep for good
  return nowMs - lastRunMs >= INTERVAL_MS[interval];
}

export function isUpkeepInterval(value: unknown): value is UpkeepInterval {
  return UPKEEP_INTERVALS.includes(value as UpkeepInterval);
}
