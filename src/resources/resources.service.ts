import { type AuditActor, changeAudited, recordAudit, removeAudited } from '../audit/audit.service.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { conflict } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import {
  hasUpcomingBookings,
  insertResource,
  listResources,
  lockResource,
  type NewResource,
  nextDisplayOrder,
  type ResourceRow,
  softDeleteResource,
  updateResource,
} from './resources.queries.ts';
import { toResourceView } from './resources.view.ts';
import { checkSeatRange } from './seat-range.rules.ts';

export type ResourceInput = Omit<NewResource, 'display_order' | 'resource_type' | 'section' | 'is_active'> &
  Partial<NewResource>;

export async function createResource(tx: Tx, actor: AuditActor, input: ResourceInput) {
  checkSeatRange(input, input);
  const row = await insertResource(tx, actor.businessId, {
    name: input.name,
    resource_type: input.resource_type ?? null,
    capacity_min: input.capacity_min,
    capacity_max: input.capacity_max,
    section: input.section ?? null,
    display_order: input.display_order ?? (await nextDisplayOrder(tx, actor.businessId)),
    is_active: input.is_active ?? true,
  });
  const view = toResourceView(row);
  await recordAudit(tx, actor, {
    action: 'resource.created',
    entityType: 'resource',
    entityId: row.id,
    after: view,
  });
  return view;
}

export function changeResource(tx: Tx, actor: AuditActor, resourceId: string, patch: Partial<ResourceRow>) {
  return changeAudited(tx, actor, {
    entityType: 'resource',
    lock: () => lockResource(tx, actor.businessId, resourceId),
    patch,
    check: (merged) => checkSeatRange(merged, patch),
    update: (changes) => updateResource(tx, actor.businessId, resourceId, changes),
    view: toResourceView,
    action: (before, after) =>
      after.is_active !== before.is_active ? 'resource.toggled' : 'resource.updated',
  });
}

/** Soft delete, so past bookings keep showing the resource; refused while bookings to come hold it. */
export const deleteResource = (tx: Tx, actor: AuditActor, resourceId: string) =>
  removeAudited(tx, actor, {
    entityType: 'resource',
    take: () => lockResource(tx, actor.businessId, resourceId),
    check: async (resource) => {
      if (await hasUpcomingBookings(tx, actor.businessId, resource.id)) {
        throw conflict('the resource has upcoming bookings; cancel or move them first, or deactivate it');
      }
    },
    remove: (resource) => softDeleteResource(tx, actor.businessId, resource.id),
    view: toResourceView,
    action: 'resource.deleted',
  });

/** The business's live resources in display order. */
export const findResources = (executor: Executor, page: PageRequest) =>
  listResources(executor, page, toResourceView);
