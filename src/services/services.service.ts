import { type AuditActor, changeAudited, recordAudit, removeAudited } from '../audit/audit.service.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { invalidField } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { unknownResourceIds } from '../resources/resources.queries.ts';
import type { ServiceRequirement } from '../schema.ts';
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

/** A group as a caller sends it: one of the group when `count` is left out. */
type RequirementInput = Omit<ServiceRequirement, 'count'> & { count?: number };

type ServiceFields = Omit<NewService, 'requirements'> & { requirements: RequirementInput[] };

export type ServiceInput = Pick<NewService, 'name' | 'duration_minutes'> & Partial<ServiceFields>;

const MAX_HELD_RESOURCES = 6;

/** The groups as stored: each id once and in the database's spelling, a count of one when none was sent. */
const requirementsOf = (groups: readonly RequirementInput[]): ServiceRequirement[] =>
  groups.map((group) => ({
    name: group.name,
    resource_ids: uniqueIds(group.resource_ids),
    count: group.count ?? 1,
  }));

/**
 * A service holds one resource of `resource_ids`, a class's, or its requirements' groups: never two
 * of these. Each group is of the business's resources, in no other group, and has `count` of them;
 * a booking holds at most six resources.
 */
async function checkService(executor: Executor, businessId: string, service: NewService) {
  const { requirements } = service;
  if (requirements.length === 0) return;
  if (service.seats !== null) throw invalidField('requirements', 'a class (seats) holds one resource');
  if (service.resource_ids.length > 0) {
    throw invalidField('requirements', 'name the resources in the groups, not also in resource_ids');
  }
  const ids = requirements.flatMap((group) => group.resource_ids);
  if (new Set(ids).size < ids.length)
    throw invalidField('requirements', 'a resource may be in one group only');
  const names = requirements.map((group) => group.name.trim().toLowerCase());
  if (new Set(names).size < names.length)
    throw invalidField('requirements', 'each group needs a name of its own');
  for (const group of requirements) {
    if (group.count > group.resource_ids.length) {
      throw invalidField(
        'requirements',
        `${group.name} has ${group.resource_ids.length} resources, fewer than its count`,
      );
    }
  }
  if (requirements.reduce((sum, group) => sum + group.count, 0) > MAX_HELD_RESOURCES) {
    throw invalidField('requirements', `a booking holds at most ${MAX_HELD_RESOURCES} resources`);
  }
  const unknown = await unknownResourceIds(executor, businessId, ids);
  if (unknown.length)
    throw invalidField('requirements', `not resources of this business: ${unknown.join(', ')}`);
}

export async function createService(tx: Tx, actor: AuditActor, input: ServiceInput) {
  const resourceIds = uniqueIds(input.resource_ids ?? []);
  await checkResourceIds(tx, actor.businessId, resourceIds);
  const service: NewService = {
    name: input.name,
    description: input.description ?? null,
    duration_minutes: input.duration_minutes,
    buffer_before_minutes: input.buffer_before_minutes ?? 0,
    buffer_after_minutes: input.buffer_after_minutes ?? 0,
    price_cents: input.price_cents ?? null,
    resource_ids: resourceIds,
    is_active: input.is_active ?? true,
    seats: input.seats ?? null,
    requirements: requirementsOf(input.requirements ?? []),
  };
  await checkService(tx, actor.businessId, service);
  const row = await insertService(tx, actor.businessId, service);
  const view = toServiceView(row);
  await recordAudit(tx, actor, {
    action: 'service.created',
    entityType: 'service',
    entityId: row.id,
    after: view,
  });
  return view;
}

export function changeService(tx: Tx, actor: AuditActor, serviceId: string, input: Partial<ServiceFields>) {
  const { requirements, ...fields } = input;
  const patch: Partial<ServiceRow> = {
    ...fields,
    ...(fields.resource_ids && { resource_ids: uniqueIds(fields.resource_ids) }),
    ...(requirements && { requirements: requirementsOf(requirements) }),
  };
  return changeAudited(tx, actor, {
    entityType: 'service',
    lock: () => lockService(tx, actor.businessId, serviceId),
    patch,
    check: async (merged) => {
      if (patch.resource_ids) await checkResourceIds(tx, actor.businessId, patch.resource_ids);
      await checkService(tx, actor.businessId, merged);
    },
    update: (changes) => updateService(tx, actor.businessId, serviceId, changes),
    view: toServiceView,
    action: 'service.updated',
  });
}

/** Soft delete: bookings made for the service keep showing it. */
export const deleteService = (tx: Tx, actor: AuditActor, serviceId: string) =>
  removeAudited(tx, actor, {
    entityType: 'service',
    take: () => lockService(tx, actor.businessId, serviceId),
    remove: (service) => softDeleteService(tx, actor.businessId, service.id),
    view: toServiceView,
    action: 'service.deleted',
  });

/** The business's live services by name; inactive ones only when asked for. */
export const findServices = (executor: Executor, page: PageRequest, options: { includeInactive: boolean }) =>
  listServices(executor, page, options, toServiceView);
