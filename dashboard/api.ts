/**
 * The session and every call to the API, through the typed SDK (`@slotwise/sdk`). `call()` adds
 * the access token (and, for a developer, the business in `X-Business-Id`), refreshes the token
 * once when the API answers 401, and signs out when that fails.
 *
 * The access token lives in memory only. The refresh token is kept in `sessionStorage`, so that a
 * reload of the tab stays signed in while closing the tab ends the session; it is never in a URL
 * or a cookie, and the page's policy allows no script but the dashboard's own.
 */
import { computed, signal } from '@preact/signals';
import { createSlotwiseClient, type SlotwiseClient } from '@slotwise/sdk';

export interface BusinessChoice {
  id: string;
  name: string;
  /** The user's role there; a developer acts as the owner of each of their businesses. */
  role: 'business_owner' | 'staff_member';
}

/** A field the API refused (422 `validation_error`), named by its path: `hours[2].open_time`. */
export interface FieldProblem {
  field: string;
  message: string;
}

export interface Session {
  /** A dashboard user (owner or staff, one membership per business) or a developer (every business of theirs). */
  kind: 'user' | 'developer';
  accessToken: string;
  refreshToken: string;
  businessId: string;
  businesses: BusinessChoice[];
}

/** An answer of the API's error format, or `network` when no answer came. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: FieldProblem[];
  constructor(status: number, code: string, message: string, fields: FieldProblem[] = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

export const session = signal<Session | null>(null);
export const currentBusiness = computed(() => {
  const current = session.value;
  return current?.businesses.find((business) => business.id === current.businessId) ?? null;
});

const STORED = 'slotwise.staff.session';
interface Stored {
  kind: Session['kind'];
  refreshToken: string;
  businessId: string;
}

function keep(next: Session | null) {
  session.value = next;
  if (next) {
    const stored: Stored = { kind: next.kind, refreshToken: next.refreshToken, businessId: next.businessId };
    sessionStorage.setItem(STORED, JSON.stringify(stored));
  } else {
    sessionStorage.removeItem(STORED);
  }
}

const baseUrl = location.origin;
/** Logins and refreshes carry no token of their own. */
const anonymous = createSlotwiseClient({ baseUrl });
const client = createSlotwiseClient({ baseUrl });
client.use({
  onRequest({ request }) {
    const current = session.peek();
    if (!current) return request;
    request.headers.set('Authorization', `Bearer ${current.accessToken}`);
    if (current.kind === 'developer') request.headers.set('X-Business-Id', current.businessId);
    return request;
  },
});

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

async function unwrap<T>(answer: Promise<Answer<T>>): Promise<T> {
  let settled: Answer<T>;
  try {
    settled = await answer;
  } catch {
    throw new ApiError(0, 'network', 'no answer');
  }
  const { data, error, response } = settled;
  // A 204 (a revoke, a delete) answers no data: success is the status, not the body.
  if (error !== undefined || !response.ok) {
    const refusal =
      (error as { error?: { code?: string; message?: string; fields?: FieldProblem[] } } | undefined)
        ?.error ?? {};
    throw new ApiError(
      response.status,
      refusal.code ?? 'unknown',
      refusal.message ?? response.statusText,
      refusal.fields,
    );
  }
  return data as T;
}

let refreshing: Promise<boolean> | undefined;

/** A new token pair for the session; false (and signed out) when the refresh token no longer works. */
function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    const current = session.peek();
    if (!current) return false;
    try {
      const tokens = await unwrap(
        anonymous.POST('/v1/auth/refresh', { body: { refresh_token: current.refreshToken } }),
      );
      keep({ ...current, accessToken: tokens.access_token, refreshToken: tokens.refresh_token });
      return true;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      keep(null);
      return false;
    }
  })().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

/**
 * One call of the API with the session's credentials: `call((api) => api.GET('/v1/manage/hours'))`.
 * The data, or an `ApiError`; a 401 is answered by one refresh and the call again.
 */
export async function call<T>(request: (api: SlotwiseClient) => Promise<Answer<T>>): Promise<T> {
  try {
    return await unwrap(request(client));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401 && session.peek())) throw error;
  }
  if (!(await refreshSession())) throw new ApiError(401, 'unauthorized', 'signed out');
  try {
    return await unwrap(request(client));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) keep(null);
    throw error;
  }
}

/** Seconds since the epoch at which a JWT expires; 0 when it cannot be read (then it is refreshed). */
function expiryOf(token: string): number {
  try {
    const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/')));
    return typeof payload.exp === 'number' ? payload.exp : 0;
  } catch {
    return 0;
  }
}

/**
 * The session's access token for a request made outside `call()` (the live stream), refreshed
 * first when it expires within 30 s: such a request has no 401 to answer by a refresh.
 */
export async function freshAccessToken(): Promise<string> {
  const current = session.peek();
  if (current && expiryOf(current.accessToken) * 1000 < Date.now() + 30_000) await refreshSession();
  return session.peek()?.accessToken ?? '';
}

/** Every item of a paged list (`items`, `next_cursor`), page after page. */
export async function allPages<T>(
  page: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const answer = await page(cursor);
    items.push(...answer.items);
    cursor = answer.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

const developerBusinesses = () =>
  allPages((cursor) =>
    call((api) => api.GET('/v1/developer/businesses', { params: { query: { limit: 200, cursor } } })),
  ).then((items) => items.map(({ id, name }) => ({ id, name, role: 'business_owner' as const })));

/**
 * Signs in with whichever account the email and password open; `account` says which when they
 * open both (the API then answers 409 `account_choice_required`).
 */
export async function signIn(email: string, password: string, account?: 'developer' | 'user'): Promise<void> {
  const answer = await unwrap(anonymous.POST('/v1/auth/sign-in', { body: { email, password, account } }));
  if (answer.account === 'developer') {
    keep({
      kind: 'developer',
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token,
      businessId: '',
      businesses: [],
    });
    const businesses = await developerBusinesses();
    keep({ ...session.peek()!, businesses, businessId: businesses[0]?.id ?? '' });
    return;
  }
  keep({
    kind: 'user',
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    businessId: answer.businesses[0]?.id ?? '',
    businesses: answer.businesses.map(({ id, name, role }) => ({ id, name, role })),
  });
}

/** Makes a developer account and signs in with it. */
export async function signUp(account: {
  email: string;
  password: string;
  first_name: string;
  last_name: string;
}): Promise<void> {
  await unwrap(anonymous.POST('/v1/auth/developer/register', { body: account }));
  await signIn(account.email, account.password, 'developer');
}

/** Creates a business of the signed-in developer and acts on it from then on. */
export async function createBusiness(name: string): Promise<string> {
  const created = await call((api) =>
    api.POST('/v1/developer/businesses', { body: { name, business_type: 'restaurant' } }),
  );
  const current = session.peek()!;
  keep({
    ...current,
    businessId: created.business_id,
    businesses: [...current.businesses, { id: created.business_id, name, role: 'business_owner' }],
  });
  return created.business_id;
}

/** Acts on another business: a dashboard user gets a token for it, a developer names it in each call. */
export async function switchBusiness(businessId: string): Promise<void> {
  const current = session.peek();
  if (!current || businessId === current.businessId) return;
  if (current.kind === 'developer') {
    keep({ ...current, businessId });
    return;
  }
  const answer = await call((api) => api.POST('/v1/auth/switch', { body: { business_id: businessId } }));
  keep({
    ...current,
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    businessId,
    businesses: answer.businesses.map(({ id, name, role }) => ({ id, name, role })),
  });
}

export function signOut(): void {
  keep(null);
}

/** After a reload: the session of this tab again, from its refresh token, or none. */
export async function restoreSession(): Promise<void> {
  const raw = sessionStorage.getItem(STORED);
  if (!raw) return;
  const stored = JSON.parse(raw) as Stored;
  session.value = { ...stored, accessToken: '', businesses: [] };
  if (!(await refreshSession())) return;
  if (stored.kind === 'developer') {
    const businesses = await developerBusinesses();
    const businessId = businesses.some((b) => b.id === stored.businessId)
      ? stored.businessId
      : (businesses[0]?.id ?? '');
    keep({ ...session.peek()!, businesses, businessId });
    return;
  }
  const me = await call((api) => api.GET('/v1/auth/me'));
  keep({
    ...session.peek()!,
    businessId: me.business_id,
    businesses: me.businesses.map(({ id, name, role }) => ({ id, name, role })),
  });
}
