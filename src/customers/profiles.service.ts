import { type AuditActor, changeAudited } from '../audit/audit.service.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { conflict, invalidField, notFound } from '../platform/errors.ts';
import {
  duplicatesOf,
  findCustomer,
  lockCustomer,
  type ProfileChanges,
  updateCustomer,
} from './customers.queries.ts';
import { toCustomerView } from './customers.view.ts';
import { storedEmail } from './entry-customer.view.ts';
import { eraseGuest, mergeGuests } from './profiles.queries.ts';

type StoredCustomer = NonNullable<Awaited<ReturnType<typeof lockCustomer>>>;

/** The fields of a profile its audit rows show, before and after a change. */
const auditedProfile = (row: ProfileChanges & { id: string }) => ({
  first_name: row.first_name,
  last_name: row.last_name,
  email: row.email,
  tags: row.tags,
  allergies: row.allergies,
  staff_notes: row.staff_notes,
  preferred_language: row.preferred_language,
  marketing_opt_in: row.marketing_opt_in,
});

/** Tags as labels: trimmed, each once, in the order first given. */
const labels = (tags: string[]) => [...new Set(tags.map((tag) => tag.trim()))];
/** Free text of the staff: blank is none. */
const textOrNull = (text: string | null) => (text === null || text.trim() === '' ? null : text);

/** A staff change of a guest's profile, audited with the fields it changed. */
export async function changeProfile(tx: Tx, actor: AuditActor, customerId: string, patch: ProfileChanges) {
  const normalized: ProfileChanges = { ...patch };
  if (patch.tags !== undefined) normalized.tags = labels(patch.tags);
  if (patch.allergies !== undefined) normalized.allergies = textOrNull(patch.allergies);
  if (patch.staff_notes !== undefined) normalized.staff_notes = textOrNull(patch.staff_notes);
  if (patch.email !== undefined) normalized.email = storedEmail(patch.email);
  await changeAudited<StoredCustomer, ReturnType<typeof auditedProfile>>(tx, actor, {
    entityType: 'customer',
    lock: () => lockCustomer(tx, actor.businessId, customerId),
    patch: normalized,
    check: (merged) => {
      if (merged.erased_at !== null) throw conflict('the guest was erased; their profile cannot be changed');
    },
    update: async (changes) => {
      await updateCustomer(tx, actor.businessId, customerId, changes);
      return { ...(await lockCustomer(tx, actor.businessId, customerId))! };
    },
    view: auditedProfile,
    action: 'customer.updated',
  });
  return customerView(tx, actor.businessId, customerId);
}

export async function customerView(executor: Executor, businessId: string, customerId: string) {
  const row = await findCustomer(executor, businessId, customerId);
  if (!row) throw notFound('customer');
  return toCustomerView(row);
}

/** Merges the duplicate `customerId` into `intoId`, answering the kept profile. */
export async function mergeProfiles(tx: Tx, actor: AuditActor, customerId: string, intoId: string) {
  if (customerId === intoId) throw invalidField('into', 'must be another customer than the one merged');
  const outcome = await mergeGuests(tx, actor.businessId, customerId, intoId, actor.actor);
  if (outcome === 'missing') throw notFound('customer');
  if (outcome === 'erased') throw conflict('an erased guest cannot be merged');
  return customerView(tx, actor.businessId, intoId);
}

/** Erases the guest's personal data (a profile merged away: 404) everywhere (db/functions/slotwise_erase_guest.sql). */
export async function eraseProfile(tx: Tx, actor: AuditActor, customerId: string) {
  await eraseGuest(tx, actor.businessId, customerId, actor.actor);
  // Erasing an erased guest again answers the same anonymous profile; a missing one is a 404.
  return customerView(tx, actor.businessId, customerId);
}

/** How many likely duplicates one profile lists: enough to pick from, a small read. */
const DUPLICATES_SHOWN = 10;

/** The profiles that are likely the same guest as this one, each with what they share. */
export async function likelyDuplicates(executor: Executor, businessId: string, customerId: string) {
  const found = await duplicatesOf(executor, businessId, customerId, DUPLICATES_SHOWN);
  if (!found) throw notFound('customer');
  return { items: found.map(({ row, match }) => ({ ...toCustomerView(row), match })) };
}
