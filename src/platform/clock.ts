/**
 * The one source of "now" for use cases (notice, windows, expiry). Tests replace `now` on the
 * app's clock instead of sleeping.
 */
export interface Clock {
  now(): number;
}

export const systemClock = (): Clock => ({ now: () => Date.now() });
