import type { Requirement } from './types.ts';

/** Each group's resources taken `count` at a time, in order: the ways the group can be held. */
const blocksOf = (free: readonly string[], count: number): string[][] =>
  Array.from({ length: Math.floor(free.length / count) }, (_, i) => free.slice(i * count, (i + 1) * count));

/**
 * How many bookings the free resources can still take at once: each needs `count` of every group,
 * and no resource serves two (groups do not share resources).
 */
export const completeSets = (requirements: readonly Requirement[], freeByRequirement: readonly string[][]) =>
  requirements.length === 0
    ? 0
    : Math.min(
        ...requirements.map((group, g) => Math.floor((freeByRequirement[g]?.length ?? 0) / group.count)),
      );

/** As many sets as the free resources make at once, no resource in two: the i-th takes each group's i-th block. */
export const disjointSets = (requirements: readonly Requirement[], freeByRequirement: readonly string[][]) =>
  Array.from({ length: completeSets(requirements, freeByRequirement) }, (_, i) =>
    requirements.flatMap((group, g) => freeByRequirement[g]!.slice(i * group.count, (i + 1) * group.count)),
  );

/**
 * The sets of resources a booking may hold, best first, at most `limit`: every way of taking
 * `count` free resources of each group, the first groups' first resources first. Each set is in
 * group order, so the first group's resource is the booking's `resource_id`.
 */
export function setsToTry(
  requirements: readonly Requirement[],
  freeByRequirement: readonly string[][],
  limit: number,
): string[][] {
  let sets: string[][] = [[]];
  for (let g = 0; g < requirements.length; g++) {
    const blocks = blocksOf(freeByRequirement[g] ?? [], requirements[g]!.count);
    const next: string[][] = [];
    for (const set of sets) {
      for (const block of blocks) {
        if (next.length === limit) break;
        next.push([...set, ...block]);
      }
    }
    sets = next;
  }
  return requirements.length === 0 ? [] : sets;
}

/** The groups that lack free resources for one more booking, by name. */
export const missingRequirements = (
  requirements: readonly Requirement[],
  freeByRequirement: readonly string[][],
) =>
  requirements
    .filter((group, g) => (freeByRequirement[g]?.length ?? 0) < group.count)
    .map((group) => group.name);

/**
 * The groups a booking asked on one resource may hold: that resource in its own group, every
 * other group as it is. Null without requirements.
 */
export const requirementsAsked = (
  requirements: readonly Requirement[] | null | undefined,
  resourceId: string | null | undefined,
): readonly Requirement[] | null =>
  !requirements?.length
    ? null
    : resourceId
      ? requirements.map((group) =>
          group.resourceIds.includes(resourceId) ? { ...group, resourceIds: [resourceId] } : group,
        )
      : requirements;
