import { Type } from 'typebox';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest } from '../platform/pagination.ts';
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

export type NewService = Omit<ServiceRow, 'id' | 'created_at'>;

export const toServiceView = (row: ServiceRow) => ({ ...row, created_at: row.created_at.toISOString() });

/** Live services of the business by name, then id; inactive ones only when asked for. */
export function listServices(executor: Executor, page: PageRequest, options: { includeInactive: boolean }) {
  let query = executor
    .selectFrom('services')
    .select(SERVICE_COLUMNS)
    .where('business_id', '=', page.owner)
    .where('deleted_at', 'is', null);
  if (!options.includeInactive) query = query.where('is_active', '=', true);
  return keysetPage(
    query,
    {
      name: 'services',
      keys: [
        { ref: 'name', type: 'text' },
        { ref: 'id', type: 'uuid' },
      ],
    },
    page,
    toServiceView,
  );
}

export const insertService = (executor: Executor, businessId: string, service: NewService) =>
  executor
    .insertInto('services')
    .values({ business_id: businessId, ...service })
    .returning(SERVICE_COLUMNS)
    .executeTakeFirstOrThrow();

export const updateService = (
  executor: Executor,
  businessId: string,
  serviceId: string,
  changes: Partial<ServiceRow>,
) =>
  executor
    .updateTable('services')
    .set(changes)
    .where('id', '=', serviceId)
    .where('business_id', '=', businessId)
    .returning(SERVICE_COLUMNS)
    .executeTakeFirstOrThrow();

export const softDeleteService = (executor: Executor, businessId: string, serviceId: string) =>
  executor
    .updateTable('services')
    .set({ deleted_at: new Date() })
    .where('id', '=', serviceId)
    .where('business_id', '=', businessId)
    .execute();

const liveService = (executor: Executor, businessId: string, serviceId: string) =>
  executor
    .selectFrom('services')
    .select(SERVICE_COLUMNS)
    .where('id', '=', serviceId)
    .where('business_id', '=', businessId)
    .where('deleted_at', 'is', null);

/** A live (not deleted) service of the business. */
export const findService = (executor: Executor, businessId: string, serviceId: string) =>
  liveService(executor, businessId, serviceId).executeTakeFirst();

/** A live service of the business, locked for the rest of the transaction. */
export const lockService = (executor: Executor, businessId: string, serviceId: string) =>
  liveService(executor, businessId, serviceId).forUpdate().executeTakeFirst();
