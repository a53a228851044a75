import createClient, { type Client, type ClientOptions, mergeHeaders } from 'openapi-fetch';
import type { components, paths } from './schema.d.ts';

export type { components, operations, paths } from './schema.d.ts';

/** Every refusal of the API: `{error:{code,message,fields?}}`. */
export type SlotwiseError = components['schemas']['Error'];

export interface SlotwiseClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the API is served, e.g. `https://api.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** A secret or publishable API key, or a dashboard JWT; leave it out for the public reads. */
  apiKey?: string;
}

export type SlotwiseClient = Client<paths>;

/**
 * A typed client of the Slotwise API: `client.GET('/v1/availability/{business_id}', { params })`
 * and `client.POST('/v1/bookings', { body })` check paths, parameters and bodies against the API's
 * OpenAPI document and answer `{ data }` or `{ error }` typed by status.
 */
export function createSlotwiseClient({ apiKey, headers, ...options }: SlotwiseClientOptions): SlotwiseClient {
  return createClient<paths>({
    ...options,
    headers: mergeHeaders(headers, apiKey ? { Authorization: `Bearer ${apiKey}` } : undefined),
  });
}
