/**
 * The periods the statistics screen offers, as routes: `#/stats/week`, `#/stats/month`,
 * `#/stats/30days`, or `#/stats/<from>/<to>` for a range of one's own. Dates are the venue's.
 */
import { addDays, dayOfWeek } from '../../src/engine/time.ts';
import { isDate } from '../dates.ts';

export type PeriodKind = 'week' | 'month' | '30days' | 'custom';

export interface Period {
  kind: PeriodKind;
  from: string;
  to: string;
}

/** The last day of `date`'s month. */
const monthEnd = (date: string) => addDays(`${addDays(`${date.slice(0, 8)}28`, 4).slice(0, 8)}01`, -1);

/**
 * The period a route names, `today` being the venue's. A week and a month are whole (Monday to
 * Sunday, first to last), so bookings already taken for their coming days count too; anything
 * the route does not name as a period is this month.
 */
export function periodOf(params: string[], today: string): Period {
  const [kind, to] = params;
  if (isDate(kind) && isDate(to)) return { kind: 'custom', from: kind, to };
  if (kind === 'week') {
    const monday = addDays(today, -((dayOfWeek(today) + 6) % 7));
    return { kind, from: monday, to: addDays(monday, 6) };
  }
  if (kind === '30days') return { kind, from: addDays(today, -29), to: today };
  return { kind: 'month', from: `${today.slice(0, 8)}01`, to: monthEnd(today) };
}

/** Every date from `from` to `to`, both included. */
export function datesBetween(from: string, to: string): string[] {
  const dates: string[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) dates.push(date);
  return dates;
}
