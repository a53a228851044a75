import { todayIn } from '../engine/index.ts';
import { onlinePartyLimit } from '../engine/party.ts';
import type { Executor } from '../platform/db.ts';
import { notFound } from '../platform/errors.ts';
import { findBlackoutsEndingFrom } from '../settings/blackouts.queries.ts';
import { loadWeek } from '../settings/hours.service.ts';
import { findBusinessBySlug, findBusinessTimezone } from './public.queries.ts';

async function timezoneOf(executor: Executor, businessId: string): Promise<string> {
  const timezone = await findBusinessTimezone(executor, businessId);
  if (timezone === undefined) throw notFound('business');
  return timezone;
}

/**
 * A business as a guest sees it; the online party limit as it applies, a number even when the
 * venue set none (its max_capacity, cut to what its tables seat).
 */
export async function businessBySlug(executor: Executor, slug: string) {
  const found = await findBusinessBySlug(executor, slug);
  if (!found) throw notFound('business');
  const { seatable_party: seatable, ...business } = found;
  return { ...business, max_online_party_size: onlinePartyLimit(business, seatable) };
}

/** The week of a business; an unknown business is 404, not seven closed days. */
export async function publicHours(executor: Executor, businessId: string) {
  await timezoneOf(executor, businessId);
  return loadWeek(executor, businessId);
}

/** Ranges a booking widget still needs to show: ending today or later in the business's zone. */
export async function publicBlackouts(executor: Executor, businessId: string, now: number) {
  const timezone = await timezoneOf(executor, businessId);
  return findBlackoutsEndingFrom(executor, businessId, todayIn(timezone, now));
}
