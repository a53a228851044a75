import { Type } from 'typebox';
import type { Executor } from '../platform/db.ts';
import { Nullable, Timestamp, Uuid } from '../platform/schemas.ts';

export const ServiceView = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  duration_minutes: Type.Integer(),
  buffer_before_minutes: Type.Integer(),
  buffer_after_minutes: Type.Integer(),
  price_cents: Nullable(Type.Integer()),
  resource_ids: Type.Array(Uuid, { description: 'resources that may perform it; empty means any' }),
  is_active: Type.Boolean(),
  created_at: Timestamp,
});

export const SERVICE_COLUMNS = [
  'id',
  'name',
  'description',
  'duration_minutes',
  'buffer_before_minutes',
  'buffer_after_minutes',
  'price_cents',
  'resource_ids',
  'is_active',
  'created_at',
] as const;

export interface ServiceRow {
  id: string;
  name: string;
  description: string | null;
  duration_minutes: number;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  price_cents: number | null;
  resource_ids: string[];
  is_active: boolean;
  created_at: Date;
}

export const toServiceView = (row: ServiceRow) => ({ ...row, created_at: row.created_at.toISOString() });

/** A service of the business that is not deleted; `forUpdate` locks it for the transaction. */
export async function findService(
  executor: Executor,
  businessId: string,
  serviceId: string,
  options: { forUpdate?: boolean } = {},
): Promise<ServiceRow | undefined> {
  let query = executor
    .selectFrom('services')
    .select(SERVICE_COLUMNS)
    .where('id', '=', serviceId)
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}
