import { type AuditActor, changeAudited, recordAudit, removeAudited } from '../audit/audit.service.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { invalidField } from '../platform/errors.ts';
import type { PageRequest } from '../platform/pagination.ts';
import { reasonOrNull } from '../platform/schemas.ts';
import {
  type BlackoutRow,
  deleteBlackout,
  insertBlackout,
  listBlackouts,
  lockBlackout,
  updateBlackout,
} from './blackouts.queries.ts';
import { toBlackoutView } from './blackouts.view.ts';

function checkRange(startDate: string, endDate: string): void {
  if (endDate < startDate) throw invalidField('end_date', `must not be before start_date (${startDate})`);
}

export interface BlackoutInput {
  start_date: string;
  end_date: string;
  reason?: string | null;
}

export async function addBlackout(tx: Tx, actor: AuditActor, input: BlackoutInput) {
  checkRange(input.start_date, input.end_date);
  const row = await insertBlackout(tx, actor.businessId, {
    start_date: input.start_date,
    end_date: input.end_date,
    reason: reasonOrNull(input.reason),
  });
  const view = toBlackoutView(row);
  await recordAudit(tx, actor, {
    action: 'settings.blackout_added',
    entityType: 'blackout_date',
    entityId: row.id,
    after: view,
  });
  return view;
}

export function changeBlackout(tx: Tx, actor: AuditActor, blackoutId: string, input: Partial<BlackoutInput>) {
  const patch: Partial<BlackoutRow> =
    input.reason === undefined ? input : { ...input, reason: reasonOrNull(input.reason) };
  return changeAudited(tx, actor, {
    entityType: 'blackout_date',
    lock: () => lockBlackout(tx, actor.businessId, blackoutId),
    patch,
    check: (merged) => checkRange(merged.start_date, merged.end_date),
    update: (changes) => updateBlackout(tx, actor.businessId, blackoutId, changes),
    view: toBlackoutView,
    action: 'settings.blackout_updated',
  });
}

export const removeBlackout = (tx: Tx, actor: AuditActor, blackoutId: string) =>
  removeAudited(tx, actor, {
    entityType: 'blackout_date',
    take: () => deleteBlackout(tx, actor.businessId, blackoutId),
    view: toBlackoutView,
    action: 'settings.blackout_removed',
  });

/** Every range of the business, past ones included, by start date. */
export const findBlackouts = (executor: Executor, page: PageRequest) =>
  listBlackouts(executor, page, toBlackoutView);
