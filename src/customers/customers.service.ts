import type { Executor } from '../platform/db.ts';

export interface CustomerInput {
  first_name: string;
  last_name: string;
  phone: string;
  email?: string | null;
}

/** `+49 (30) 123-45` -> `+493012345`: digits, with a leading `+` kept. Returning customers match on it. */
export function normalizePhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return phone.trim().startsWith('+') ? `+${digits}` : digits;
}

/**
 * Finds the business's customer by normalised phone or creates one; a returning customer's name
 * and email become the latest booking's. Safe under concurrency: the unique index decides.
 */
export async function upsertCustomer(executor: Executor, businessId: string, input: CustomerInput) {
  return executor
    .insertInto('customers')
    .values({
      business_id: businessId,
      first_name: input.first_name,
      last_name: input.last_name,
      phone: input.phone,
      phone_normalized: normalizePhone(input.phone),
      email: input.email ?? null,
    })
    .onConflict((oc) =>
      oc.columns(['business_id', 'phone_normalized']).doUpdateSet((eb) => ({
        first_name: eb.ref('excluded.first_name'),
        last_name: eb.ref('excluded.last_name'),
        phone: eb.ref('excluded.phone'),
        email: eb.fn.coalesce(eb.ref('excluded.email'), eb.ref('customers.email')),
        updated_at: new Date(),
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}
