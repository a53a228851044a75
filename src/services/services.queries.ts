import { businessRows } from '../platform/business-rows.ts';
import type { Executor } from '../platform/db.ts';
import { keysetPage, type PageRequest, sortedBy } from '../platform/pagination.ts';
import type { ServiceRequirement } from '../schema.ts';

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
  'seats',
  'requirements',
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
  seats: number | null;
  requirements: ServiceRequirement[];
  created_at: Date;
}

export type NewService = Omit<ServiceRow, 'id' | 'created_at'>;

/** The row's values as the table takes them: its requirements as JSON text. */
const stored = <T extends Partial<ServiceRow>>({ requirements, ...rest }: T) => ({
  ...rest,
  ...(requirements && { requirements: JSON.stringify(requirements) }),
});

/** Live services of the business by name, then id, each as `view` makes it; inactive ones only when asked for. */
export function listServices<T>(
  executor: Executor,
  page: PageRequest,
  options: { includeInactive: boolean },
  view: (row: ServiceRow) => T,
) {
  let query = executor
    .selectFrom('services')
    .select(SERVICE_COLUMNS)
    .where('business_id', '=', page.owner)
    .where('deleted_at', 'is', null);
  if (!options.includeInactive) query = query.where('is_active', '=', true);
  return keysetPage(query, { name: 'services', keys: sortedBy('name', 'text') }, page, view);
}

const serviceRows = businessRows('services', SERVICE_COLUMNS);

export const insertService = (executor: Executor, businessId: string, service: NewService) =>
  serviceRows.insert(executor, businessId, stored(service));

export const updateService = (
  executor: Executor,
  businessId: string,
  serviceId: string,
  changes: Partial<ServiceRow>,
) => serviceRows.update(executor, businessId, serviceId, stored(changes));

export const softDeleteService = (executor: Executor, businessId: string, serviceId: string) =>
  serviceRows.update(executor, businessId, serviceId, { deleted_at: new Date() });

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
