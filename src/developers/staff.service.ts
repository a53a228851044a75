import { recordAudit } from '../audit/audit.ts';
import { hashPassword, type Principal, type TokenService } from '../platform/auth.ts';
import { type Db, type Executor, type Tx, withTx } from '../platform/db.ts';
import { conflict, notFound } from '../platform/errors.ts';
import { decodeCursorStrings, type Page, toPage } from '../platform/pagination.ts';
import { checkPassword, issueTokens, type TokenPair } from './developers.service.ts';
import {
  deleteUserOf,
  findUserByEmail,
  insertUser,
  listUsersOf,
  lockUserOf,
  revokeRefreshTokensOf,
  setUserRole,
} from './staff.queries.ts';

type Acting = Principal & { businessId: string };
export type StaffRole = 'business_owner' | 'staff_member';

export interface StaffView {
  id: string;
  email: string;
  role: StaffRole;
  created_at: string;
}

const toStaffView = (row: { id: string; email: string; role: string; created_at: Date }): StaffView => ({
  id: row.id,
  email: row.email,
  role: row.role as StaffRole,
  created_at: row.created_at.toISOString(),
});

export async function logInUser(
  executor: Executor,
  tokens: TokenService,
  input: { email: string; password: string },
): Promise<TokenPair> {
  const user = await findUserByEmail(executor, input.email);
  await checkPassword(user?.password_hash, input.password);
  return issueTokens(executor, tokens, 'user', {
    sub: user!.id,
    email: user!.email,
    role: user!.role as StaffRole,
    businessId: user!.business_id,
  });
}

export async function listStaff(
  executor: Executor,
  businessId: string,
  page: { limit: number; cursor?: string },
): Promise<Page<StaffView>> {
  const after = decodeCursorStrings(page.cursor, 1);
  const rows = await listUsersOf(executor, businessId, { limit: page.limit, afterId: after?.[0] ?? null });
  return toPage(rows, page.limit, (row) => [row.id], toStaffView);
}

export async function inviteStaff(
  db: Db,
  principal: Acting,
  input: { email: string; role: StaffRole; password: string },
): Promise<StaffView> {
  // Hashed before the transaction: it takes tens of milliseconds, which no lock should wait for.
  const passwordHash = await hashPassword(input.password);
  return withTx(db, async (tx) => {
    if (await findUserByEmail(tx, input.email)) throw conflict('a dashboard user with this email exists');
    const created = toStaffView(
      await insertUser(tx, {
        business_id: principal.businessId,
        email: input.email,
        role: input.role,
        password_hash: passwordHash,
      }),
    );
    await recordAudit(tx, principal, {
      action: 'staff.invited',
      entityType: 'user',
      entityId: created.id,
      after: created,
    });
    return created;
  });
}

export async function changeStaffRole(tx: Tx, principal: Acting, userId: string, role: StaffRole) {
  const before = await lockUserOf(tx, principal.businessId, userId);
  if (!before) throw notFound('user');
  const after = toStaffView(await setUserRole(tx, userId, role));
  await recordAudit(tx, principal, {
    action: 'staff.role_changed',
    entityType: 'user',
    entityId: userId,
    before: toStaffView(before),
    after,
  });
  return after;
}

export async function removeStaff(tx: Tx, principal: Acting, userId: string): Promise<void> {
  const removed = await deleteUserOf(tx, principal.businessId, userId);
  if (!removed) throw notFound('user');
  await revokeRefreshTokensOf(tx, removed.id, new Date());
  await recordAudit(tx, principal, {
    action: 'staff.removed',
    entityType: 'user',
    entityId: removed.id,
    before: toStaffView(removed),
  });
}
