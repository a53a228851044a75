import { checkStart } from './slots.ts';
import { instantToWall, MINUTE_MS } from './time.ts';
import type { BusyPeriod, DayRules } from './types.ts';

/** How the host stand seats a walk-in: any minute inside hours, past pacing (the host decides). */
const HOST_STAND = { onGrid: false, ignoreNoticeAndWindow: true, passPacing: true } as const;

/**
 * How many minutes each party of a walk-in queue waits for a table, in the queue's order: the
 * earliest start from `rules.now` at which a resource or combination that seats it is free for its
 * whole booking, the tables the parties ahead of it are quoted counting as taken from then on. A
 * table frees when a period holding it ends, so the starts tried are now and each such end (moved by
 * the buffer before), rounded up to the minute. Null: nothing seats the party on `rules.date`.
 */
export function queueWaits(rules: DayRules, parties: readonly number[]): (number | null)[] {
  const from = Math.ceil(rules.now / MINUTE_MS) * MINUTE_MS;
  const busy: BusyPeriod[] = [...rules.busy];
  return parties.map((partySize) => {
    const frees = busy.map(
      (period) => Math.ceil((period.end + rules.bufferBeforeMinutes * MINUTE_MS) / MINUTE_MS) * MINUTE_MS,
    );
    const starts = [...new Set([from, ...frees.filter((at) => at > from)])].sort((a, b) => a - b);
    for (const start of starts) {
      const check = checkStart(
        { ...rules, partySize, busy },
        instantToWall(start, rules.timezone).time,
        HOST_STAND,
      );
      // A wall time read back onto another day of the window (past midnight, a repeated hour) is not this start.
      if (!check.ok || check.start !== start) continue;
      const taken =
        check.freeResourceIds.length > 0
          ? [check.freeResourceIds[0]!]
          : tablesOf(rules, check.freeCombinationIds[0]!);
      for (const resourceId of taken) busy.push({ resourceId, start: check.heldStart, end: check.heldEnd });
      return (start - from) / MINUTE_MS;
    }
    return null;
  });
}

const tablesOf = (rules: DayRules, combinationId: string): readonly string[] =>
  rules.combinations?.find((combination) => combination.id === combinationId)?.resourceIds ?? [];
