import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../platform/schemas.ts';

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

interface CustomerRow {
  id: string;
  first_name: string;
  last_name: string;
  phone: string;
  email: string | null;
  created_at: Date;
  updated_at: Date;
}

export const toCustomerView = (row: CustomerRow) => ({
  ...row,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});
