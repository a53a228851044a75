import type { PasswordHasher, TokenService } from '../platform/auth.ts';
import type { Db } from '../platform/db.ts';
import { AppError } from '../platform/errors.ts';
import { findDeveloperByEmail } from './developers.queries.ts';
import { logInDeveloper } from './developers.service.ts';
import {
  checkPassword,
  type LoginAttempt,
  type TokenPair,
  underLoginLimit,
  wrongCredentials,
} from './sessions.service.ts';
import { findUserByEmail } from './staff.queries.ts';
import { type DashboardSession, logInUser } from './staff.service.ts';

export type AccountKind = 'developer' | 'user';

export type SignedIn = ({ account: 'developer' } & TokenPair) | ({ account: 'user' } & DashboardSession);

const passwordFits = (passwords: PasswordHasher, hash: string, password: string) =>
  checkPassword(passwords, hash, password).then(
    () => true,
    () => false,
  );

/**
 * One sign-in for both kinds of account: `account` names the kind, or the email finds it. An
 * email of both kinds whose password opens both is asked which (409 `account_choice_required`);
 * one it opens is signed in. Each attempt counts against the login limits of the kind it tries,
 * an undecided one against the dashboard user's, so two kinds give no more guesses than two
 * logins would.
 */
export async function signIn(
  db: Db,
  tokens: TokenService,
  passwords: PasswordHasher,
  input: { email: string; password: string; account?: AccountKind },
  attempt: LoginAttempt,
): Promise<SignedIn> {
  const credentials = { email: input.email, password: input.password };
  const asDeveloper = async (): Promise<SignedIn> => ({
    account: 'developer',
    ...(await logInDeveloper(db, tokens, passwords, credentials, attempt)),
  });
  const asUser = async (): Promise<SignedIn> => ({
    account: 'user',
    ...(await logInUser(db, tokens, passwords, credentials, attempt)),
  });
  if (input.account) return input.account === 'developer' ? asDeveloper() : asUser();
  const [developer, user] = await Promise.all([
    findDeveloperByEmail(db, input.email),
    findUserByEmail(db, input.email),
  ]);
  if (!developer || !user) return developer ? asDeveloper() : asUser();
  const opens = await underLoginLimit(db, { kind: 'user', email: input.email }, attempt, async () => {
    const [developerFits, userFits] = await Promise.all([
      passwordFits(passwords, developer.password_hash, input.password),
      passwordFits(passwords, user.password_hash ?? '', input.password),
    ]);
    if (!developerFits && !userFits) throw wrongCredentials();
    return { developerFits, userFits };
  });
  if (opens.developerFits && opens.userFits) {
    throw new AppError(
      'account_choice_required',
      'this email and password open a developer account and a dashboard account: say which in `account`',
    );
  }
  return opens.developerFits ? asDeveloper() : asUser();
}
