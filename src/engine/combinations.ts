import type { DayRules, EngineCombination } from './types.ts';

/** Tightest fit first: the smallest largest party, then name, then id. */
function tightestFirst(a: EngineCombination, b: EngineCombination): number {
  if (a.capacityMax !== b.capacityMax) return a.capacityMax - b.capacityMax;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The combinations that may seat this booking at all, tightest first: they take the party, every
 * resource of them is active and performs the service. A booking asked on one resource, or a seat
 * of a class, sits there alone.
 */
export function usableCombinations(rules: DayRules): EngineCombination[] {
  // A class holds one resource; a service with requirements holds its groups'.
  if (
    rules.resourceId ||
    rules.class ||
    rules.requirements?.length ||
    !rules.combinations ||
    rules.combinations.length === 0
  )
    return [];
  const active = new Set(
    rules.resources.filter((resource) => resource.isActive).map((resource) => resource.id),
  );
  const allowed =
    rules.allowedResourceIds && rules.allowedResourceIds.length > 0 ? rules.allowedResourceIds : null;
  return rules.combinations
    .filter(
      (combination) =>
        rules.partySize >= combination.capacityMin &&
        rules.partySize <= combination.capacityMax &&
        combination.resourceIds.every((id) => active.has(id) && (allowed === null || allowed.includes(id))),
    )
    .sort(tightestFirst);
}

/** Whether every resource of `combination` is among those a service period limits starts to (null: all). */
export const withinPeriod = (
  combination: Pick<EngineCombination, 'resourceIds'>,
  periodResourceIds: readonly string[] | null,
) => periodResourceIds === null || combination.resourceIds.every((id) => periodResourceIds.includes(id));
