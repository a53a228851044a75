/** The customers screen's calls: a page of the search's results, and one customer with their history. */
import { call } from '../api.ts';

/** Enough to pick from while typing; the API's own bound is 200. */
const PAGE_SIZE = 50;

export const searchCustomers = (search: string, cursor?: string) =>
  call((api) =>
    api.GET('/v1/manage/customers', {
      params: { query: { limit: PAGE_SIZE, ...(search ? { search } : {}), ...(cursor ? { cursor } : {}) } },
    }),
  );

export type CustomerPage = Awaited<ReturnType<typeof searchCustomers>>;
export type CustomerSummary = CustomerPage['items'][number];

export const loadCustomer = (customerId: string) =>
  call((api) =>
    api.GET('/v1/manage/customers/{customer_id}', { params: { path: { customer_id: customerId } } }),
  );

export type CustomerRecord = Awaited<ReturnType<typeof loadCustomer>>;

export const fullName = (customer: { first_name: string; last_name: string }) =>
  `${customer.first_name} ${customer.last_name}`.trim();

export type ProfileChanges = {
  tags?: string[];
  allergies?: string | null;
  staff_notes?: string | null;
};

export const saveProfile = (customerId: string, body: ProfileChanges) =>
  call((api) =>
    api.PATCH('/v1/manage/customers/{customer_id}', { params: { path: { customer_id: customerId } }, body }),
  );

export const exportCustomer = (customerId: string) =>
  call((api) =>
    api.GET('/v1/manage/customers/{customer_id}/export', { params: { path: { customer_id: customerId } } }),
  );

export const eraseCustomer = (customerId: string) =>
  call((api) =>
    api.POST('/v1/manage/customers/{customer_id}/erase', { params: { path: { customer_id: customerId } } }),
  );

/** Tags as typed in one field: comma-separated, blanks dropped, each once. */
export const tagsOf = (typed: string) => [
  ...new Set(
    typed
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== ''),
  ),
];
