import type { Db } from '../platform/db.ts';
import { databaseZoneSpelling } from './settings.queries.ts';

/** Whether the Intl time-zone data, which the availability engine computes with, knows the name. */
function intlKnows(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * The IANA zone name as stored: known to both Intl and PostgreSQL (their data are updated apart,
 * so a name dropped from one, such as `US/Pacific-New`, can live on in the other), and spelled as
 * the database's zone data spells it, so `europe/berlin` is kept as `Europe/Berlin`. An alias
 * stays itself: Intl would map `US/Pacific` to `America/Los_Angeles`, but also `Europe/Kyiv` back
 * to the retired `Europe/Kiev`. Undefined for anything else; offsets such as `+01:00` are refused,
 * as PostgreSQL reads their sign opposite to ISO 8601.
 */
export async function canonicalTimeZone(db: Db, name: string): Promise<string | undefined> {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name) || !intlKnows(name)) return undefined;
  return databaseZoneSpelling(db, name);
}
