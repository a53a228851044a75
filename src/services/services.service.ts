import { type AuditActor, changeAudited, recordAudit } from '../audit/audit.service.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { unknownResourceIds } from '../resources/resources.queries.ts';
import {
  insertService,
  listServices,
  lockService,
  type NewService,
  type ServiceRow,
  softDeleteService,
  updateService,
} from './services.queries.ts';
import { toServiceView } from './services.view.ts';

/** Each id once, in the database's spelling, so an id sent twice or in capitals is one resource. */
const uniqueIds = (ids: readonly string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];

async function checkResourceIds(executor: Executor, businessId: string, ids: readonly string[]) {
  const unknown = await unknownResourceIds(executor, businessId, ids);
  if (unknown.length)
    throw invalidField('resource_ids', `not resources of this business: ${unknown.join(', ')}`);
}

export type ServiceInput = Pick<NewService, 'name' | 'duration_minutes'> & Partial<NewService>;

export async function createService(tx: Tx, actor: AuditActor, input: ServiceInput) {
  const resourceIds = uniqueIds(input.resource_ids ?? []);
  await checkResourceIds(tx, actor.businessId, resourceIds);
  const row = await insertService(tx, actor.businessId, {
    name: input.name,
    description: input.description ?? null,
    duration_minutes: input.duration_minutes,
    buffer_before_minutes: input.buffer_before_minutes ?? 0,
    buffer_after_minutes: input.buffer_after_minutes ?? 0,
    price_cents: input.price_cents ?? null,
    resource_ids: resourceIds,
    is_active: input.is_active ?? true,
    seats: input.seats ?? null,
  });
  const view = toServiceView(row);
  await recordAudit(tx, actor, {
    action: 'service.created',
    entityType: 'service',
    entityId: row.id,
    after: view,
  });
  return view;
}

export function changeService(tx: Tx, actor: AuditActor, serviceId: string, input: Partial<ServiceRow>) {
  const patch = input.resource_ids ? { ...input, resource_ids: uniqueIds(input.resource_ids) } : input;
  return changeAudited(tx, actor, {
    entityType: 'service',
    lock: () => lockService(tx, actor.businessId, serviceId),
    patch,
    check: async () => {
      if (patch.resource_ids) await checkResourceIds(tx, actor.businessId, patch.resource_ids);
    },
    update: (changes) => updateService(tx, actor.businessId, serviceId, changes),
    view: toServiceView,
    action: 'service.updated',
  });
}

/** Soft delete: bookings made for the service keep showing it. */
export async function deleteService(tx: Tx, actor: AuditActor, serviceId: string): Promise<void> {
  const service = await lockService(tx, actor.businessId, serviceId);
  if (!service) throw notFound('service');
  await softDeleteService(tx, actor.businessId, service.id);
  await recordAudit(tx, actor, {
    action: 'service.deleted',
    entityType: 'service',
    entityId: service.id,
    before: toServiceView(service),
  });
}

/** The business's live services by name; inactive ones only when asked for. */
export const findServices = (executor: Executor, page: PageRequest, options: { includeInactive: boolean }) =>
  listServices(executor, page, options, toServiceView);
