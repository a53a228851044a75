/**
 * The one source of "now" for use cases (notice, windows, expiry). Tests replace `now` on the
 * app's clock instead of sleeping.
 */
export interface Clock {
  now(): number;
}

export const systemClock = (): Clock => ({ now: () => Date.now() });

/**
 * The same day of the next month (UTC), or that month's last day when it is shorter: when a
 * monthly period that starts at `ms` ends.
 */
export function oneMonthAfter(ms: number): number {
  const start = new Date(ms);
  const lastDayNextMonth = new Date(
    Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 2, 0),
  ).getUTCDate();
  const end = new Date(ms);
  end.setUTCDate(1);
  end.setUTCMonth(start.getUTCMonth() + 1);
  end.setUTCDate(Math.min(start.getUTCDate(), lastDayNextMonth));
  return end.getTime();
}
