import { recordAudit } from '../audit/audit.ts';
import { ALL_SCOPES, generateApiKey, type Principal, type Scope } from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { invalidField, notFound } from '../platform/errors.ts';
import type { Page, PageRequest } from '../platform/pagination.ts';
import { deactivateApiKey, insertApiKey, isSandboxBusiness, listApiKeysOf } from './api-keys.queries.ts';

type KeyRow = Awaited<ReturnType<typeof insertApiKey>>;

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  environment: 'live' | 'test';
  rate_limit_per_minute: number | null;
  is_active: boolean;
  created_at: string;
  last_used_at: string | null;
}

const toView = (row: KeyRow): ApiKeyView => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes as Scope[],
  environment: row.environment,
  rate_limit_per_minute: row.rate_limit_per_minute,
  is_active: row.is_active,
  created_at: row.created_at.toISOString(),
  last_used_at: row.last_used_at?.toISOString() ?? null,
});

export interface ApiKeyInput {
  name: string;
  scopes: Scope[];
  environment: 'live' | 'test';
  rateLimitPerMinute: number | null;
}

/** Makes a key and stores its hash; the full key exists only in the returned value. */
export async function issueApiKey(
  executor: Executor,
  businessId: string,
  input: ApiKeyInput,
): Promise<{ view: ApiKeyView; key: string }> {
  const generated = generateApiKey(input.environment);
  const row = await insertApiKey(executor, {
    business_id: businessId,
    name: input.name,
    prefix: generated.prefix,
    lookup: generated.lookup,
    key_hash: generated.keyHash,
    scopes: ALL_SCOPES.filter((scope) => input.scopes.includes(scope)),
    environment: input.environment,
    rate_limit_per_minute: input.rateLimitPerMinute,
  });
  return { view: toView(row), key: generated.key };
}

export async function createApiKey(
  tx: Tx,
  principal: Principal & { businessId: string },
  input: {
    name: string;
    scopes?: Scope[];
    environment?: 'live' | 'test';
    rate_limit_per_minute?: number | null;
  },
): Promise<ApiKeyView & { key: string }> {
  const sandbox = await isSandboxBusiness(tx, principal.businessId);
  const environment = input.environment ?? (sandbox ? 'test' : 'live');
  if (sandbox && environment === 'live') {
    throw invalidField('environment', 'a sandbox business has test keys only');
  }
  const { view, key } = await issueApiKey(tx, principal.businessId, {
    name: input.name,
    scopes: input.scopes ?? ['read', 'write'],
    environment,
    rateLimitPerMinute: input.rate_limit_per_minute ?? null,
  });
  await recordAudit(tx, principal, {
    action: 'api_key.created',
    entityType: 'api_key',
    entityId: view.id,
    after: view,
  });
  return { ...view, key };
}

export async function listApiKeys(executor: Executor, page: PageRequest): Promise<Page<ApiKeyView>> {
  const rows = await listApiKeysOf(executor, page);
  return { ...rows, items: rows.items.map(toView) };
}

export async function revokeApiKey(tx: Tx, principal: Principal & { businessId: string }, keyId: string) {
  const revoked = await deactivateApiKey(tx, principal.businessId, keyId);
  if (!revoked) throw notFound('API key');
  await recordAudit(tx, principal, {
    action: 'api_key.revoked',
    entityType: 'api_key',
    entityId: revoked.id,
    after: toView(revoked),
  });
}
