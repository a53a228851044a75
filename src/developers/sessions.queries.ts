import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/db.ts';

export type AccountKind = 'developer' | 'user' | 'partner';

export async function insertRefreshToken(
  executor: Executor,
  values: {
    token_hash: string;
    subject_kind: 'developer' | 'user';
    subject_id: string;
    business_id: string | null;
    expires_at: Date;
    /** The family of the token it renews; a login starts a new one. */
    family_id?: string;
  },
): Promise<void> {
  await executor.insertInto('refresh_tokens').values(values).execute();
}

/** Marks an unexpired, unspent refresh token spent and returns whose it was; undefined when it cannot be used. */
export function spendRefreshToken(executor: Executor, tokenHash: string, now: Date) {
  return executor
    .updateTable('refresh_tokens')
    .set({ revoked_at: now })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['subject_kind', 'subject_id', 'business_id', 'family_id'])
    .executeTakeFirst();
}

/**
 * Revokes every token of the family of a refresh token that was already spent (or revoked);
 * answers whether there was such a token. An unknown or merely expired token changes nothing.
 */
export async function revokeFamilyOfSpent(
  executor: Executor,
  tokenHash: string,
  now: Date,
): Promise<boolean> {
  const spent = await executor
    .selectFrom('refresh_tokens')
    .select('family_id')
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is not', null)
    .executeTakeFirst();
  if (!spent) return false;
  await executor
    .updateTable('refresh_tokens')
    .set({ revoked_at: now })
    .where('family_id', '=', spent.family_id)
    .where('revoked_at', 'is', null)
    .execute();
  return true;
}

/** Until the transaction ends, other login attempts for the same account wait here. */
export async function lockAccountLogins(tx: Tx, kind: AccountKind, email: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`login:${kind}:${email}`}))`.execute(tx);
}

/** When and from which client address the account's failed logins since `since` came, oldest first. */
export function failedLoginsSince(executor: Executor, kind: AccountKind, email: string, since: Date) {
  return executor
    .selectFrom('login_failures')
    .select(['failed_at', 'client_ip'])
    .where('account_kind', '=', kind)
    .where('email', '=', email)
    .where('failed_at', '>', since)
    .orderBy('failed_at')
    .execute();
}

export async function insertLoginFailure(
  executor: Executor,
  values: { account_kind: AccountKind; email: string; client_ip: string; failed_at: Date },
): Promise<number> {
  const row = await executor
    .insertInto('login_failures')
    .values(values)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function deleteLoginFailure(executor: Executor, id: number): Promise<void> {
  await executor.deleteFrom('login_failures').where('id', '=', id).execute();
}

/**
 * Forgets up to `limit` failures older than `before`, of any account. Rows another login is
 * already deleting are skipped rather than waited for: the next login takes what is left.
 */
export async function deleteLoginFailuresBefore(
  executor: Executor,
  before: Date,
  limit = 100,
): Promise<void> {
  await executor
    .deleteFrom('login_failures')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('login_failures')
        .select('id')
        .where('failed_at', '<', before)
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .execute();
}
