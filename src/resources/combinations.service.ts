import { type AuditActor, changeAudited, recordAudit, removeAudited } from '../audit/audit.service.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { invalidField } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import {
  type CombinationRow,
  deleteCombinationRow,
  insertCombination,
  listCombinations,
  lockCombination,
  type NewCombination,
  updateCombination,
} from './combinations.queries.ts';
import { toCombinationView } from './combinations.view.ts';
import { unknownResourceIds } from './resources.queries.ts';
import { checkSeatRange } from './seat-range.rules.ts';

export type CombinationInput = Omit<NewCombination, 'is_active'> & Partial<NewCombination>;

/**
 * A combination joins distinct active resources of the business, and its range is a range. A
 * resource deactivated or deleted later leaves the combination in place, but availability and
 * bookings pass it over until the resource is active again.
 */
async function checkCombination(
  executor: Executor,
  businessId: string,
  combination: Pick<CombinationRow, 'resource_ids' | 'capacity_min' | 'capacity_max'>,
  changed: Partial<CombinationRow>,
): Promise<void> {
  checkSeatRange(combination, changed);
  if (changed.resource_ids === undefined) return;
  const ids = combination.resource_ids;
  if (new Set(ids).size !== ids.length) throw invalidField('resource_ids', 'must not name a resource twice');
  const unknown = await unknownResourceIds(executor, businessId, ids, { activeOnly: true });
  if (unknown.length > 0) {
    throw invalidField('resource_ids', `${unknown.join(', ')}: not active resources of this business`);
  }
}

export async function createCombination(tx: Tx, actor: AuditActor, input: CombinationInput) {
  const combination: NewCombination = { ...input, is_active: input.is_active ?? true };
  await checkCombination(tx, actor.businessId, combination, combination);
  const view = toCombinationView(await insertCombination(tx, actor.businessId, combination));
  await recordAudit(tx, actor, {
    action: 'combination.created',
    entityType: 'combination',
    entityId: view.id,
    after: view,
  });
  return view;
}

export const changeCombination = (
  tx: Tx,
  actor: AuditActor,
  combinationId: string,
  patch: Partial<CombinationRow>,
) =>
  changeAudited(tx, actor, {
    entityType: 'combination',
    lock: () => lockCombination(tx, actor.businessId, combinationId),
    patch,
    check: (merged) => checkCombination(tx, actor.businessId, merged, patch),
    update: (changes) => updateCombination(tx, actor.businessId, combinationId, changes),
    view: toCombinationView,
    action: 'combination.updated',
  });

/** Bookings made on a combination keep the resources they hold: they name resources, not it. */
export const deleteCombination = (tx: Tx, actor: AuditActor, combinationId: string) =>
  removeAudited(tx, actor, {
    entityType: 'combination',
    take: () => lockCombination(tx, actor.businessId, combinationId),
    remove: (combination) => deleteCombinationRow(tx, actor.businessId, combination.id),
    view: toCombinationView,
    action: 'combination.deleted',
  });

export const findCombinations = (executor: Executor, page: PageRequest) =>
  listCombinations(executor, page, toCombinationView);
