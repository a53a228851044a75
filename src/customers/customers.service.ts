import { holdsSecretCredentialOf, type Principal } from '../platform/auth.ts';
import type { Db, Executor } from '../platform/db.ts';
import { withStatementTimeout } from '../platform/deadline.ts';
import { AppError, invalidField } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { foldForSearch, listCustomers, upsertCustomerRow } from './customers.queries.ts';
import { toCustomerView } from './customers.view.ts';
import { storedEmail } from './entry-customer.view.ts';

export interface CustomerInput {
  first_name: string;
  last_name: string;
  /** Empty only for a walk-in who gave no phone. */
  phone: string;
  email?: string | null;
}

/** The customer's fields of a flat request body; an empty email is no email. */
export const customerOf = (body: CustomerInput): CustomerInput => ({
  first_name: body.first_name,
  last_name: body.last_name,
  phone: body.phone,
  email: storedEmail(body.email),
});

/** `+49 (30) 123-45` -> `+493012345`: digits, with a leading `+` kept. Returning customers match on it. */
export function normalizePhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return phone.trim().startsWith('+') ? `+${digits}` : digits;
}

/**
 * The credentials whose holders may change a returning customer's name and email: secret ones,
 * held by the business itself or its developer, allowed to write. A key meant for web pages is not
 * trusted, and neither is a call without a credential, nor a credential of another business
 * calling a public endpoint of this one.
 */
export const isTrustedCaller = (
  principal: Pick<Principal, 'kind' | 'businessId' | 'scopes'> | null,
  businessId: string,
): boolean => holdsSecretCredentialOf(principal, businessId) && principal.scopes.has('write');

/** What a caller sent of its guest, as answered back to it. */
export const sentGuest = (sent: CustomerInput) => ({
  first_name: sent.first_name,
  last_name: sent.last_name,
  email: sent.email ?? null,
  phone: sent.phone,
});

/** An entry's answer without the customer record it was attached to. */
type AnswerWithoutCustomer<T> = Omit<T, 'customer_id' | 'customer' | 'guest'> & {
  guest: ReturnType<typeof sentGuest>;
};

/**
 * A new booking as answered to the caller who made it. A trusted caller sees the customer the
 * booking belongs to; anyone else gets back what it sent (`guest`) and nothing of the customer its
 * phone matched (name, email, phone spelling or id), so booking with a stranger's number tells
 * nothing about them. The one place such an answer is made: a stored idempotent answer is this one.
 */
export function answerToCaller<T extends { customer_id: string; customer: unknown; guest: unknown }>(
  principal: Pick<Principal, 'kind' | 'businessId' | 'scopes'>,
  businessId: string,
  booking: T,
  sent: CustomerInput,
): T | AnswerWithoutCustomer<T> {
  if (isTrustedCaller(principal, businessId)) return booking;
  const { customer_id: _id, customer: _customer, guest: _given, ...rest } = booking;
  return { ...rest, guest: sentGuest(sent) };
}

/**
 * Finds the business's customer by normalised phone or creates one. A trusted caller's name and
 * email become a returning customer's (the latest booking's); anyone else only attaches to the
 * customer, so knowing a phone number does not let a stranger rewrite a record. Safe under
 * concurrency: the unique index on the normalised phone decides.
 */
export async function upsertCustomer(
  executor: Executor,
  businessId: string,
  input: CustomerInput,
  trusted: boolean,
) {
  return upsertCustomerRow(executor, { business_id: businessId, ...customerRowOf(input) }, trusted);
}

/**
 * A customer's stored fields from the ones given, the phone also normalised for matching; no phone
 * (`''`, a walk-in who gave none) matches nobody: the guest gets a profile of their own.
 */
export const customerRowOf = (input: CustomerInput) => ({
  first_name: input.first_name,
  last_name: input.last_name,
  phone: input.phone,
  phone_normalized: input.phone === '' ? null : normalizePhone(input.phone),
  email: storedEmail(input.email),
});

/** A search made only of phone characters also matches the normalised phone, whatever its formatting. */
const PHONE_LIKE = /^[\d\s+()./-]+$/;

/**
 * How many characters (code points) a search takes, spaces around it set aside: fewer than two
 * match most of a large list and cost a scan of it.
 */
export const SEARCH_LENGTH = { min: 2, max: 100 } as const;

/** A search anywhere in the text can still scan every customer of the business: it is stopped past this. */
export const SEARCH_TIMEOUT_MS = 1000;

const searchStopped = () =>
  new AppError(
    'search_timeout',
    `the search took longer than ${SEARCH_TIMEOUT_MS / 1000} s and was stopped; type more of the name, phone or email, or retry`,
    { retryAfterSeconds: 1 },
  );

/**
 * The business's customers by name, optionally those whose names, phone or email contain
 * `search`, whatever its case, accents or phone formatting.
 */
export async function findCustomers(db: Db, page: PageRequest, search?: string, tag?: string) {
  if (search === undefined) return listCustomers(db, page, toCustomerView, undefined, tag);
  const text = search.trim();
  if ([...text].length < SEARCH_LENGTH.min) {
    throw invalidField('search', `must hold at least ${SEARCH_LENGTH.min} characters besides spaces`);
  }
  const digits = normalizePhone(text);
  const phone = PHONE_LIKE.test(text) && /\d/.test(digits) ? { digits, typed: text } : null;
  return withStatementTimeout(
    SEARCH_TIMEOUT_MS,
    () =>
      db.transaction().execute(async (tx) => {
        const folded = await foldForSearch(tx, text);
        return listCustomers(tx, page, toCustomerView, { folded, phone }, tag);
      }),
    searchStopped,
  );
}
