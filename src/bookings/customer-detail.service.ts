import { customerStats, findCustomer } from '../customers/customers.queries.ts';
import { toCustomerView } from '../customers/customers.view.ts';
import type { Executor } from '../platform/db.ts';
import { notFound } from '../platform/errors.ts';
import { recentBookingsOf } from './customer-detail.queries.ts';

/** A customer with their last bookings and booking statistics. */
export async function customerDetail(executor: Executor, businessId: string, customerId: string) {
  const [customer, bookings, stats] = await Promise.all([
    findCustomer(executor, businessId, customerId),
    recentBookingsOf(executor, businessId, customerId),
    customerStats(executor, businessId, customerId),
  ]);
  if (!customer) throw notFound('customer');
  return { ...toCustomerView(customer), bookings: bookings.map((row) => row.view), stats };
}
