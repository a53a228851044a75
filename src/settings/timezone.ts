import { sql } from 'kysely';
import type { Executor } from '../platform/db.ts';

const PG_INVALID_PARAMETER_VALUE = '22023';

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
 * Whether the database's time-zone data knows the name: the two are updated apart, so a name
 * dropped from one (`US/Pacific-New`) can live on in the other. Ask it in a statement of its own,
 * never inside a transaction: on PostgreSQL the refusal aborts the transaction it happens in.
 */
async function databaseKnows(db: Executor, name: string): Promise<boolean> {
  try {
    await sql`SELECT now() AT TIME ZONE ${name}`.execute(db);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === PG_INVALID_PARAMETER_VALUE) return false;
    throw error;
  }
}

/**
 * An IANA zone name both Intl and PostgreSQL understand. Offsets such as `+01:00` are refused:
 * PostgreSQL reads them with the POSIX sign, the opposite of ISO 8601.
 */
export async function isValidTimeZone(db: Executor, name: string): Promise<boolean> {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  return intlKnows(name) && (await databaseKnows(db, name));
}
