import { recordAudit } from '../audit/audit.service.ts';
import { ALL_SCOPES, type ApiKeyType, generateApiKey, type Principal, type Scope } from '../platform/auth.ts';
import type { Executor, Tx } from '../platform/db.ts';
import { conflict, type FieldError, invalidField, notFound, validationError } from '../platform/errors.ts';
import type { Page, PageRequest } from '../platform/pagination.ts';
import {
  deactivateApiKey,
  findActivePublishableKeys,
  insertApiKey,
  isSandboxBusiness,
  listApiKeysOf,
  lockApiKey,
} from './api-keys.queries.ts';

type KeyRow = Awaited<ReturnType<typeof insertApiKey>>;

export interface ApiKeyView {
  id: string;
  name: string;
  type: ApiKeyType;
  prefix: string;
  /** A publishable key in full (it is no secret); null for a secret key, shown once at creation. */
  key: string | null;
  scopes: Scope[];
  environment: 'live' | 'test';
  allowed_origins: string[];
  is_default: boolean;
  rate_limit_per_minute: number | null;
  is_active: boolean;
  created_at: string;
  last_used_at: string | null;
}

const toView = (row: KeyRow): ApiKeyView => ({
  id: row.id,
  name: row.name,
  type: row.type,
  prefix: row.prefix,
  key: row.public_key,
  scopes: row.scopes as Scope[],
  environment: row.environment,
  allowed_origins: row.allowed_origins,
  is_default: row.is_default,
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
  type?: ApiKeyType;
  allowedOrigins?: string[];
  isDefault?: boolean;
}

/** Makes a key and stores its hash (and a publishable key itself); a secret key exists only in the returned value. */
export async function issueApiKey(
  executor: Executor,
  businessId: string,
  input: ApiKeyInput,
): Promise<{ view: ApiKeyView; key: string }> {
  const type = input.type ?? 'secret';
  const generated = generateApiKey(input.environment, type);
  const row = await insertApiKey(executor, {
    business_id: businessId,
    name: input.name,
    type,
    prefix: generated.prefix,
    lookup: generated.lookup,
    key_hash: generated.keyHash,
    public_key: type === 'publishable' ? generated.key : null,
    scopes: ALL_SCOPES.filter((scope) => input.scopes.includes(scope)),
    environment: input.environment,
    allowed_origins: input.allowedOrigins ?? [],
    is_default: input.isDefault ?? false,
    rate_limit_per_minute: input.rateLimitPerMinute,
  });
  return { view: toView(row), key: generated.key };
}

/**
 * The publishable key every business has from its creation, used by its hosted booking page: it
 * lists no origins, and is accepted from the API's own public URL (see `DatabaseAuthenticator`).
 */
export const issueDefaultPublishableKey = (
  executor: Executor,
  businessId: string,
  environment: 'live' | 'test',
) =>
  issueApiKey(executor, businessId, {
    name: 'default publishable',
    type: 'publishable',
    scopes: [],
    environment,
    rateLimitPerMinute: null,
    isDefault: true,
  });

/**
 * What the hosted page `/book/{slug}` needs, in one query: the business's default publishable key
 * in full, and the origins its active publishable keys list (sorted, without repeats), the sites
 * that may frame the page and hear of its bookings.
 */
export async function hostedPageKeys(
  executor: Executor,
  businessId: string,
): Promise<{ key: string; origins: string[] }> {
  const rows = await findActivePublishableKeys(executor, businessId);
  const key = rows.find((row) => row.is_default)?.public_key;
  if (!key) throw notFound('business');
  // Keys made before origins were held to WEB_ORIGIN may list others: those frame nothing.
  const origins = rows.flatMap((row) => row.allowed_origins).filter((origin) => WEB_ORIGIN.test(origin));
  return { key, origins: [...new Set(origins)].sort() };
}

/** The business's default publishable key in full, for pages the API serves itself (`/book/{slug}`). */
export async function defaultPublishableKey(executor: Executor, businessId: string): Promise<string> {
  return (await hostedPageKeys(executor, businessId)).key;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An origin whose host is a DNS name or an IP address: URLs also allow `'`, `;` and `,` in a
 * host, which would end a CSP source list or an HTML attribute the origin is written into.
 */
const WEB_ORIGIN = /^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * An origin as browsers send it (`https://shop.example`, `http://localhost:5173`), or undefined
 * when `value` is not one: a scheme, a host and an optional port; no path, query, credentials or
 * wildcard; `http` only for a loopback host (local development). A trailing `/` is dropped, the
 * host lower-cased and a default port removed, as in the `Origin` header.
 */
function normalizeOrigin(value: string): string | undefined {
  if (!/^https?:\/\/[^/?#@*\s]+\/?$/i.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  return WEB_ORIGIN.test(url.origin) ? url.origin : undefined;
}

/** The origins of a new publishable key, normalised and without repeats; 422 naming each one refused. */
function allowedOriginsOf(origins: string[]): string[] {
  const normalized = origins.map(normalizeOrigin);
  const fields: FieldError[] = normalized.flatMap((origin, index) =>
    origin === undefined
      ? [
          {
            field: `allowed_origins[${index}]`,
            message:
              'must be an origin such as https://shop.example: scheme, host and optional port, no path or wildcard; http only for localhost',
          },
        ]
      : [],
  );
  if (fields.length) throw validationError(fields);
  return [...new Set(normalized as string[])];
}

export interface NewApiKeyInput {
  name: string;
  type?: ApiKeyType;
  scopes?: Scope[];
  environment?: 'live' | 'test';
  allowed_origins?: string[];
  rate_limit_per_minute?: number | null;
}

/** What a key of each type takes: scopes for a secret key, origins for a publishable one. */
function checkTypeFields(type: ApiKeyType, input: NewApiKeyInput): void {
  if (type === 'publishable') {
    if (input.scopes !== undefined) {
      throw invalidField('scopes', 'a publishable key has no scopes: what it may do is fixed');
    }
    if (input.allowed_origins === undefined) {
      throw invalidField('allowed_origins', 'is required for a publishable key');
    }
  } else if (input.allowed_origins !== undefined) {
    throw invalidField('allowed_origins', 'only a publishable key has allowed origins');
  }
}

export async function createApiKey(
  tx: Tx,
  principal: Principal & { businessId: string },
  input: NewApiKeyInput,
): Promise<ApiKeyView & { key: string }> {
  const type = input.type ?? 'secret';
  checkTypeFields(type, input);
  const sandbox = await isSandboxBusiness(tx, principal.businessId);
  const environment = input.environment ?? (sandbox ? 'test' : 'live');
  if (sandbox && environment === 'live') {
    throw invalidField('environment', 'a sandbox business has test keys only');
  }
  const { view, key } = await issueApiKey(tx, principal.businessId, {
    name: input.name,
    type,
    scopes: type === 'publishable' ? [] : (input.scopes ?? ['read', 'write']),
    environment,
    allowedOrigins: type === 'publishable' ? allowedOriginsOf(input.allowed_origins ?? []) : [],
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

/** Revokes a key; the default publishable key is rotated instead, so the hosted booking page keeps working. */
export async function revokeApiKey(tx: Tx, principal: Principal & { businessId: string }, keyId: string) {
  const current = await lockApiKey(tx, principal.businessId, keyId);
  if (!current) throw notFound('API key');
  if (current.is_default) {
    throw conflict('the default publishable key cannot be revoked; rotate it to replace it');
  }
  const revoked = await deactivateApiKey(tx, principal.businessId, keyId);
  await recordAudit(tx, principal, {
    action: 'api_key.revoked',
    entityType: 'api_key',
    entityId: current.id,
    after: toView(revoked!),
  });
}

/**
 * Replaces an active key by a new one with the same name, type, scopes, origins, limit and
 * default flag; the old key is refused from then on. Answers the new key, in full this once.
 */
export async function rotateApiKey(
  tx: Tx,
  principal: Principal & { businessId: string },
  keyId: string,
): Promise<ApiKeyView & { key: string }> {
  const current = await lockApiKey(tx, principal.businessId, keyId);
  if (!current) throw notFound('API key');
  if (!current.is_active) throw conflict('a revoked key cannot be rotated');
  const revoked = await deactivateApiKey(tx, principal.businessId, keyId);
  const { view, key } = await issueApiKey(tx, principal.businessId, {
    name: current.name,
    type: current.type,
    scopes: current.scopes as Scope[],
    environment: current.environment,
    allowedOrigins: current.allowed_origins,
    isDefault: current.is_default,
    rateLimitPerMinute: current.rate_limit_per_minute,
  });
  await recordAudit(tx, principal, {
    action: 'api_key.rotated',
    entityType: 'api_key',
    entityId: view.id,
    before: toView(revoked!),
    after: view,
    meta: { replaces: current.id },
  });
  return { ...view, key };
}
