import { hostedPageKeys } from '../developers/api-keys.service.ts';
import type { Executor } from '../platform/db.ts';
import { businessBySlug } from '../public/public.service.ts';

/** The business a hosted booking page is for, its default publishable key and the origins that may frame it. */
export async function hostedPageOf(executor: Executor, slug: string) {
  const business = await businessBySlug(executor, slug);
  return { business, keys: await hostedPageKeys(executor, business.id) };
}
