import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../platform/schemas.ts';
import type { CustomerRow } from './customers.queries.ts';

/** A customer on the wire, in the list and in the detail. */
export const CustomerView = Type.Object({
  id: Uuid,
  first_name: Type.String(),
  last_name: Type.String(),
  phone: Type.String(),
  email: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const toCustomerView = (row: CustomerRow) => ({
  ...row,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
